import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { randomUUID } from 'node:crypto';
import { submitFlightRequest } from '../../src/use-cases/submit-flight-request.js';
import { reserveAirspace, volumeOf } from '../../src/use-cases/deconfliction/reserve-airspace.js';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, isoZ, square, submission } from '../support/fixtures.js';

const HOUR = 3_600_000;
const ROUNDS = 3;

interface Window {
  start: Date;
  end: Date;
}

/** A window of `hours` starting `fromNowHours` ahead, on whole seconds. */
function window(fromNowHours: number, hours = 1): Window {
  const start = new Date(Math.ceil((Date.now() + fromNowHours * HOUR) / 1000) * 1000);
  return { start, end: new Date(start.getTime() + hours * HOUR) };
}

function flight(operatorUuid: string, at: [number, number], when: Window, overrides: Record<string, unknown> = {}) {
  return submission(operatorUuid, {
    flight_area: featureCollection(square(at[0], at[1])),
    start_time: isoZ(when.start),
    end_time: isoZ(when.end),
    ...overrides,
  });
}

/**
 * Two replicas of the service on one database, as the gateway would spread
 * calls over them: the deconfliction guarantee must hold across both.
 */
describe('deconfliction across replicas (the reservation ledger)', function () {
  // Each story repeats its race and registers its own operators on a busy two-core machine.
  this.timeout(180_000);
  let one: TestService;
  let two: TestService;
  const replica = (index: number) => (index % 2 === 0 ? one : two);

  before(async () => {
    one = await startTestService({ env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
    two = await startTestService({ shared: one.shared, env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
  });
  after(async () => {
    await two.close();
    await one.close();
  });

  const operators = (count: number) => Promise.all(Array.from({ length: count }, () => one.seedOperator()));
  const record = async (uuid: string) => (await one.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data;
  const decide = (index: number, itemId: string) =>
    replica(index).call('POST', `/api/reviews/${itemId}/decision`, { as: admin, body: { decision: 'approve', reason: 'Approved in a race' } });

  it('POST /api/flight-requests: when 20 operators submit the same area and hour at once on two replicas, then exactly one is Approved and the others wait for deconfliction review', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(20);
      const when = window(2 + round * 3);
      const at: [number, number] = [6.0 + round * 0.5, 52.7];
      const answers = await Promise.all(
        owners.map((owner, index) =>
          replica(index).call('POST', '/api/flight-requests', { as: operatorPrincipal(owner), body: flight(owner, at, when) }),
        ),
      );
      expect(
        answers.map((answer) => answer.status),
        `round ${round}`,
      ).to.deep.equal(owners.map(() => 201));
      const statuses = answers.map((answer) => answer.body.data.status);
      expect(
        statuses.filter((status) => status === 'Approved'),
        `round ${round}: ${statuses.join(',')}`,
      ).to.have.length(1);
      expect(
        statuses.filter((status) => status === 'Pending'),
        `round ${round}`,
      ).to.have.length(19);
      for (const answer of answers.filter((candidate) => candidate.body.data.status === 'Pending')) {
        const { review } = answer.body.data;
        expect(review.findings.map((finding: { code: string }) => finding.code)).to.include('DECONFLICTION_OVERLAP');
        expect(review.items.map((item: { kind: string }) => item.kind)).to.deep.equal(['deconfliction']);
        expect(JSON.stringify(review), 'the other flight stays anonymous').not.to.match(
          new RegExp(owners.filter((owner) => owner !== answer.body.data.operator_uuid).join('|')),
        );
      }
    }
  });

  it('POST /api/flight-requests: when a large flight and small flights inside it are submitted at once on two replicas, then the Approved ones never overlap', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(5);
      const when = window(90 + round * 3);
      const corner: [number, number] = [9.0 + round * 0.5, 52.7];
      // The large flight is kept in the ledger's coarse cells, the small ones in its fine cells.
      const large = { ...flight(owners[0]!, corner, when), flight_area: featureCollection(square(corner[0], corner[1], 0.05)) };
      const smalls = owners.slice(1).map((owner, index) => flight(owner, [corner[0] + 0.005 + index * 0.01, corner[1] + 0.02], when));
      const answers = await Promise.all(
        [large, ...smalls].map((body, index) => replica(index).call('POST', '/api/flight-requests', { as: operatorPrincipal(owners[index]!), body })),
      );
      const approved = answers.map((answer) => answer.body.data.status === 'Approved');
      expect(approved.some(Boolean), `round ${round}: someone is Approved`).to.equal(true);
      expect(approved[0] && approved.slice(1).some(Boolean), `round ${round}: the large flight and a small one inside it`).to.equal(false);
    }
    const [holder, late] = await operators(2);
    const when = window(130);
    const corner: [number, number] = [11.0, 52.7];
    const small = await one.call('POST', '/api/flight-requests', { as: operatorPrincipal(holder!), body: flight(holder!, [11.02, 52.72], when) });
    const large = await two.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(late!),
      body: { ...flight(late!, corner, when), flight_area: featureCollection(square(corner[0], corner[1], 0.05)) },
    });
    expect([small.body.data.status, large.body.data.status]).to.deep.equal(['Approved', 'Pending']);
  });

  it('POST /api/flight-requests: when flights share only the time or only the area, then both are Approved', async () => {
    const [a, b, c] = await operators(3);
    const when = window(30);
    const first = await one.call('POST', '/api/flight-requests', { as: operatorPrincipal(a!), body: flight(a!, [7.0, 52.7], when) });
    const sameTimeElsewhere = await two.call('POST', '/api/flight-requests', { as: operatorPrincipal(b!), body: flight(b!, [7.02, 52.7], when) });
    const sameAreaLater = await two.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(c!),
      body: flight(c!, [7.0, 52.7], { start: when.end, end: new Date(when.end.getTime() + HOUR) }),
    });
    expect([first, sameTimeElsewhere, sameAreaLater].map((answer) => answer.body.data.status)).to.deep.equal(['Approved', 'Approved', 'Approved']);
  });

  it('POST /api/reviews/{id}/decision: when overlapping pending requests are approved at once by reviewers on two replicas, then one is Approved and the others answer 409 with the shared volume and stay pending', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(6);
      const when = window(40 + round * 3);
      const at: [number, number] = [8.0 + round * 0.5, 52.7];
      // 200 m needs the national authority's review: each request waits with one item.
      const created = await Promise.all(
        owners.map((owner) =>
          one.call('POST', '/api/flight-requests', { as: operatorPrincipal(owner), body: flight(owner, at, when, { max_altitude: 200 }) }),
        ),
      );
      const items = created.map((answer) => answer.body.data.review.items[0].id as string);
      const answers = await Promise.all(items.map((itemId, index) => decide(index, itemId)));
      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status === 200),
        `round ${round}: ${statuses.join(',')}`,
      ).to.have.length(1);
      expect(
        statuses.filter((status) => status === 409),
        `round ${round}`,
      ).to.have.length(5);
      const records = await Promise.all(created.map((answer) => record(answer.body.data.uuid)));
      expect(records.filter((request) => request.status === 'Approved')).to.have.length(1);
      for (const [index, answer] of answers.entries()) {
        if (answer.status !== 409) continue;
        expect(records[index].status).to.equal('Pending');
        expect(records[index].review.items[0].status).to.equal('pending');
        if (answer.body.conflicts) {
          const [shared] = answer.body.conflicts;
          expect(shared.start_time).to.equal(when.start.toISOString().replace('.000Z', '+00:00'));
          expect(shared.upper_altitude_m).to.equal(200);
          expect(JSON.stringify(answer.body)).not.to.include(records.find((request) => request.status === 'Approved').uuid);
        }
      }
    }
  });

  it('POST /api/reviews/{id}/decision: when two reviewers approve requests that overlap only in time, then both are Approved', async () => {
    const [a, b] = await operators(2);
    const when = window(60);
    const created = await Promise.all(
      [a!, b!].map((owner, index) =>
        one.call('POST', '/api/flight-requests', {
          as: operatorPrincipal(owner),
          body: flight(owner, [9.0 + index * 0.02, 52.7], when, { max_altitude: 200 }),
        }),
      ),
    );
    const answers = await Promise.all(created.map((answer, index) => decide(index, answer.body.data.review.items[0].id)));
    expect(answers.map((answer) => answer.status)).to.deep.equal([200, 200]);
  });

  it('DELETE /api/flight-requests/{uuid}: when an approved flight is cancelled while an overlapping one is approved, then never both hold the airspace; once cancelled, its place is free', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b] = await operators(2);
      const when = window(70 + round * 3);
      const at: [number, number] = [10.0 + round * 0.5, 52.7];
      const holder = await one.call('POST', '/api/flight-requests', { as: operatorPrincipal(a!), body: flight(a!, at, when) });
      expect(holder.body.data.status).to.equal('Approved');
      const waiting = await two.call('POST', '/api/flight-requests', { as: operatorPrincipal(b!), body: flight(b!, at, when) });
      expect(waiting.body.data.status).to.equal('Pending');
      const [cancelled, approved] = await Promise.all([
        one.call('DELETE', `/api/flight-requests/${holder.body.data.uuid}`, { as: operatorPrincipal(a!), body: { reason: 'Weather' } }),
        decide(1, waiting.body.data.review.items[0].id),
      ]);
      expect(cancelled.status).to.equal(200);
      const [first, second] = await Promise.all([record(holder.body.data.uuid), record(waiting.body.data.uuid)]);
      expect(first.status).to.equal('Cancelled');
      expect([200, 409]).to.include(approved.status);
      expect(['Pending', 'Approved']).to.include(second.status);
      // Refused while the other flight still held the airspace, the request is examined again once it gave it up.
      await waitFor(async () => (await record(waiting.body.data.uuid)).status === 'Approved', 15_000);
    }
  });

  it('GET /api/reviews: when two operators wait for review of the same airspace, then each entry shows the volume it shares with the other, and none for a request alone', async () => {
    const [a, b, c] = await operators(3);
    const when = window(100);
    const created = await Promise.all(
      [
        [a!, [12.0, 52.7]],
        [b!, [12.005, 52.7]],
        [c!, [12.5, 52.7]],
      ].map(([owner, at]) =>
        one.call('POST', '/api/flight-requests', {
          as: operatorPrincipal(owner as string),
          body: flight(owner as string, at as [number, number], when, { max_altitude: 200 }),
        }),
      ),
    );
    const uuids = created.map((answer) => answer.body.data.uuid as string);
    type Entry = { flight_request: { uuid: string }; competing: Array<{ bbox: number[]; upper_altitude_m: number }> };
    const queued = async () => {
      const entries: Entry[] = [];
      for (let page = 1; ; page++) {
        const queue = await two.call('GET', `/api/reviews?per_page=100&page=${page}`, { as: reviewerPrincipal('NATIONAL') });
        expect(queue.status).to.equal(200);
        entries.push(...(queue.body.data as Entry[]));
        if (queue.body.data.length < 100) return entries;
      }
    };
    // The queue is a projection of the requests' events: it follows them a moment later.
    const [first, second, alone] = await waitFor(async () => {
      const entries = await queued();
      const found = uuids.map((uuid) => entries.find((entry) => entry.flight_request.uuid === uuid));
      return found.every(Boolean) ? (found as Entry[]) : undefined;
    }, 15_000);
    if (!first || !second || !alone) throw new Error('the queue lacks an entry');
    expect(first.competing).to.have.length(1);
    expect(second.competing).to.have.length(1);
    expect(first.competing[0]!.bbox).to.deep.equal([12.005, 52.7, 12.01, 52.71]);
    expect(first.competing[0]!.upper_altitude_m).to.equal(200);
    expect(alone.competing).to.deep.equal([]);
    expect(JSON.stringify(first.competing)).not.to.include(uuids[1]!);
  });

  it('POST /api/flight-requests: when a claim on the airspace was left by a writer that died, then it blocks only for its lease, is withdrawn after, and the new flight is Approved', async () => {
    const [dead, alive] = await operators(2);
    const when = window(110);
    const at: [number, number] = [13.0, 52.7];
    const later = { start: new Date(when.start.getTime() + 2 * HOUR), end: new Date(when.end.getTime() + 2 * HOUR) };
    // A submission stored as Screening whose writer died after claiming the ledger (a stored request as its template).
    const template = await submitFlightRequest(one.service.deps, {
      principal: operatorPrincipal(dead!),
      body: flight(dead!, at, when),
      idempotencyKey: undefined,
    });
    const claim = randomUUID();
    const stranded = { ...template, _id: randomUUID(), start_time: later.start, end_time: later.end, deconfliction: null };
    await one.service.deps.requests.insertScreening(stranded, { claim, state: 'claiming', at: new Date(), cells: [] });
    expect((await reserveAirspace(one.service.deps, volumeOf(stranded), claim, stranded._id)).reserved).to.equal(true);
    const strandedUuid = stranded._id;

    const blocked = await two.call('POST', '/api/flight-requests', { as: operatorPrincipal(alive!), body: flight(alive!, at, later) });
    expect(blocked.body.data.status, 'within its lease the claim counts').to.equal('Pending');

    const afterLease = { ...two.service.deps, now: () => new Date(Date.now() + 20_000) };
    const approved = await submitFlightRequest(afterLease, {
      principal: operatorPrincipal(alive!),
      body: flight(alive!, at, later),
      idempotencyKey: undefined,
    });
    expect(approved.status).to.equal('Approved');
    expect(await one.service.deps.requests.isScreening(strandedUuid), 'the stranded submission is gone').to.equal(false);
    expect(await one.service.deps.requests.find(strandedUuid)).to.equal(null);
  });

  it('DELETE /api/flight-requests/{uuid}: when an approved flight is cancelled, then a request waiting only for deconfliction over it is approved by the system, and one that also needs another review keeps only that item', async () => {
    const [holderOwner, otherHolderOwner, onlyWaiting, alsoAltitude] = await operators(4);
    const when = window(120);
    const [at, elsewhere]: Array<[number, number]> = [
      [14.0, 52.7],
      [14.5, 52.7],
    ];
    const holder = await one.call('POST', '/api/flight-requests', { as: operatorPrincipal(holderOwner!), body: flight(holderOwner!, at!, when) });
    const otherHolder = await one.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(otherHolderOwner!),
      body: flight(otherHolderOwner!, elsewhere!, when),
    });
    const waiting = await two.call('POST', '/api/flight-requests', { as: operatorPrincipal(onlyWaiting!), body: flight(onlyWaiting!, at!, when) });
    const higher = await one.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(alsoAltitude!),
      body: flight(alsoAltitude!, elsewhere!, when, { max_altitude: 200 }),
    });
    expect([holder, otherHolder, waiting, higher].map((answer) => answer.body.data.status)).to.deep.equal([
      'Approved',
      'Approved',
      'Pending',
      'Pending',
    ]);
    expect(higher.body.data.review.items.map((item: { kind: string }) => item.kind).sort()).to.deep.equal(['altitude', 'deconfliction']);

    for (const [answer, owner] of [
      [holder, holderOwner!],
      [otherHolder, otherHolderOwner!],
    ] as const) {
      const cancelled = await one.call('DELETE', `/api/flight-requests/${answer.body.data.uuid}`, {
        as: operatorPrincipal(owner),
        body: { reason: 'Weather' },
      });
      expect(cancelled.status).to.equal(200);
    }

    const approved = await waitFor(async () => {
      const now = await record(waiting.body.data.uuid);
      return now.status === 'Approved' ? now : undefined;
    }, 15_000);
    expect(approved.review.items[0]).to.include({ kind: 'deconfliction', status: 'approved', decided_by: 'system' });
    const still = await waitFor(async () => {
      const now = await record(higher.body.data.uuid);
      return now.review.items.some((item: { kind: string; status: string }) => item.kind === 'deconfliction' && item.status === 'approved')
        ? now
        : undefined;
    }, 15_000);
    expect(still.status, 'its altitude item still waits for the authority').to.equal('Pending');
    expect(still.review.items.find((item: { kind: string }) => item.kind === 'altitude').status).to.equal('pending');
  });
});
