import { expect } from 'chai';
import { admin, operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
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
describe('deconfliction across replicas (the reservation ledger)', () => {
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
      const answers = await Promise.all(owners.map((owner, index) => replica(index).call('POST', '/api/flight-requests', { as: operatorPrincipal(owner), body: flight(owner, at, when) })));
      expect(answers.map((answer) => answer.status), `round ${round}`).to.deep.equal(owners.map(() => 201));
      const statuses = answers.map((answer) => answer.body.data.status);
      expect(statuses.filter((status) => status === 'Approved'), `round ${round}: ${statuses.join(',')}`).to.have.length(1);
      expect(statuses.filter((status) => status === 'Pending'), `round ${round}`).to.have.length(19);
      for (const answer of answers.filter((candidate) => candidate.body.data.status === 'Pending')) {
        const { review } = answer.body.data;
        expect(review.findings.map((finding: { code: string }) => finding.code)).to.include('DECONFLICTION_OVERLAP');
        expect(review.items.map((item: { kind: string }) => item.kind)).to.deep.equal(['deconfliction']);
        expect(JSON.stringify(review), 'the other flight stays anonymous').not.to.match(new RegExp(owners.filter((owner) => owner !== answer.body.data.operator_uuid).join('|')));
      }
    }
  });

  it('POST /api/flight-requests: when flights share only the time or only the area, then both are Approved', async () => {
    const [a, b, c] = await operators(3);
    const when = window(30);
    const first = await one.call('POST', '/api/flight-requests', { as: operatorPrincipal(a!), body: flight(a!, [7.0, 52.7], when) });
    const sameTimeElsewhere = await two.call('POST', '/api/flight-requests', { as: operatorPrincipal(b!), body: flight(b!, [7.02, 52.7], when) });
    const sameAreaLater = await two.call('POST', '/api/flight-requests', { as: operatorPrincipal(c!), body: flight(c!, [7.0, 52.7], { start: when.end, end: new Date(when.end.getTime() + HOUR) }) });
    expect([first, sameTimeElsewhere, sameAreaLater].map((answer) => answer.body.data.status)).to.deep.equal(['Approved', 'Approved', 'Approved']);
  });

  it('POST /api/reviews/{id}/decision: when overlapping pending requests are approved at once by reviewers on two replicas, then one is Approved and the others answer 409 with the shared volume and stay pending', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(6);
      const when = window(40 + round * 3);
      const at: [number, number] = [8.0 + round * 0.5, 52.7];
      // 200 m needs the national authority's review: each request waits with one item.
      const created = await Promise.all(owners.map((owner) => one.call('POST', '/api/flight-requests', { as: operatorPrincipal(owner), body: flight(owner, at, when, { max_altitude: 200 }) })));
      const items = created.map((answer) => answer.body.data.review.items[0].id as string);
      const answers = await Promise.all(items.map((itemId, index) => decide(index, itemId)));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200), `round ${round}: ${statuses.join(',')}`).to.have.length(1);
      expect(statuses.filter((status) => status === 409), `round ${round}`).to.have.length(5);
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
      [a!, b!].map((owner, index) => one.call('POST', '/api/flight-requests', { as: operatorPrincipal(owner), body: flight(owner, [9.0 + index * 0.02, 52.7], when, { max_altitude: 200 }) })),
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
      if (approved.status === 409) {
        expect(second.status).to.equal('Pending');
        const again = await decide(0, waiting.body.data.review.items[0].id);
        expect(again.status, 'the cancelled flight no longer holds the airspace').to.equal(200);
      } else {
        expect(approved.status).to.equal(200);
      }
      expect((await record(waiting.body.data.uuid)).status).to.equal('Approved');
    }
  });
});
