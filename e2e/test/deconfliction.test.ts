import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { flightRequestExample } from '@dfc/contracts';
import type { GatewayClient, RegisteredOperator } from '../src/client.js';
import { hoursAhead, registerOperators, startFlightReplicas } from '../src/flight-replicas.js';
import { localStackRunning, pause, resume } from '../src/stack.js';
import type { System } from '../src/system.js';

const HOUR = 3_600_000;
const ROUNDS = 2;

/**
 * Safety first, through the gateway with two flight-request-service
 * processes behind it (a round-robin balancer, as a Service spreads pods):
 * no two flights of different operators approved for the same airspace,
 * whichever replica decides, and every decision made on the operator's facts
 * as they are now.
 */
describe('deconfliction and current operator facts, across two flight-request-service processes', function () {
  this.timeout(600_000);
  let system: System;
  let client: GatewayClient;

  before(async () => {
    ({ system, client } = await startFlightReplicas());
  });
  after(async () => {
    await resume('broker').catch(() => undefined);
    await system?.stop();
  });

  const operators = (count: number, overrides: Record<string, unknown> = {}) => registerOperators(client, count, overrides);
  const flight = (operator: RegisteredOperator, corner: [number, number], start: Date, overrides: Record<string, unknown> = {}) => ({
    ...flightRequestExample({
      operatorUuid: operator.uuid,
      operatorEmail: operator.email,
      start,
      end: new Date(start.getTime() + HOUR),
      corner,
      side: 0.01,
    }),
    ...overrides,
  });
  const submit = (operator: RegisteredOperator, body: unknown) => client.send('POST', '/api/flight-requests', { key: operator.key, body });
  const read = async (uuid: string) => (await client.send('GET', `/api/flight-requests/${uuid}`, { key: system.adminKey })).body.data;

  it('POST /api/flight-requests: when 20 operators submit the same area and hour at the same instant, then exactly one is Approved and 19 wait with DECONFLICTION_OVERLAP', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(20);
      const start = hoursAhead(2 + round * 2);
      const answers = await Promise.all(owners.map((owner) => submit(owner, flight(owner, [6.0 + round * 0.3, 52.7], start))));
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((answer) => answer.status !== 201)?.body),
      ).to.deep.equal(owners.map(() => 201));
      const statuses = answers.map((answer) => answer.body.data.status as string);
      expect(
        statuses.filter((status) => status === 'Approved'),
        `round ${round}: ${statuses.join(',')}`,
      ).to.have.length(1);
      for (const answer of answers.filter((candidate) => candidate.body.data.status !== 'Approved')) {
        expect(answer.body.data.status).to.equal('Pending');
        expect(answer.body.data.review.findings.map((finding: { code: string }) => finding.code)).to.include('DECONFLICTION_OVERLAP');
      }
    }
  });

  it('POST /api/reviews/{id}/decision: when pairwise-overlapping pending requests are approved at once by several reviewers, then the approved ones are conflict-free and the others answer 409 with the shared volume', async () => {
    const reviewers = await Promise.all(
      [1, 2, 3].map(async (index) => {
        const issued = await client.send('POST', '/api/api-keys', {
          key: system.adminKey,
          body: { role: 'reviewer', authority: 'NATIONAL', name: `desk ${index}` },
        });
        expect(issued.status).to.equal(201);
        return issued.body.data.key as string;
      }),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(6);
      const start = hoursAhead(20 + round * 2);
      // A chain of squares each overlapping its neighbours: 1 meets 2, 2 meets 3, … (200 m needs NATIONAL review).
      const created = await Promise.all(
        owners.map((owner, index) => submit(owner, flight(owner, [7.0 + round * 0.3 + index * 0.006, 52.7], start, { max_altitude: 200 }))),
      );
      expect(created.map((answer) => answer.body.data.status)).to.deep.equal(owners.map(() => 'Pending'));
      const items = created.map((answer) => answer.body.data.review.items[0].id as string);
      const answers = await Promise.all(
        items.map((itemId, index) =>
          client.send('POST', `/api/reviews/${itemId}/decision`, {
            key: reviewers[index % reviewers.length],
            body: { decision: 'approve', reason: 'Clear of traffic' },
          }),
        ),
      );
      expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).to.equal(true);
      const records = await Promise.all(created.map((answer) => read(answer.body.data.uuid)));
      const approved = records.map((request, index) => (request.status === 'Approved' ? index : -1)).filter((index) => index >= 0);
      expect(approved.length, `round ${round}`).to.be.greaterThan(0);
      for (const index of approved) expect(approved, `neighbours of ${index} are not both approved`).not.to.include(index + 1);
      for (const [index, answer] of answers.entries()) {
        if (answer.status !== 409) continue;
        expect(records[index].status).to.equal('Pending');
        expect(records[index].review.items[0].status).to.equal('pending');
      }
    }
  });

  it('DELETE /api/flight-requests/{uuid}: when an approved flight is cancelled while an overlapping request is approved, then both never hold it; once cancelled, the other can be approved', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b] = await operators(2);
      const start = hoursAhead(40 + round * 2);
      const holder = await submit(a!, flight(a!, [8.0 + round * 0.3, 52.7], start));
      const waiting = await submit(b!, flight(b!, [8.0 + round * 0.3, 52.7], start));
      expect([holder.body.data.status, waiting.body.data.status]).to.deep.equal(['Approved', 'Pending']);
      const itemId = waiting.body.data.review.items[0].id;
      const approve = () =>
        client.send('POST', `/api/reviews/${itemId}/decision`, { key: system.adminKey, body: { decision: 'approve', reason: 'Clear' } });
      const [cancelled, decided] = await Promise.all([
        client.send('DELETE', `/api/flight-requests/${holder.body.data.uuid}`, { key: a!.key, body: { reason: 'Weather' } }),
        approve(),
      ]);
      expect(cancelled.status).to.equal(200);
      expect([200, 409]).to.include(decided.status);
      expect((await read(holder.body.data.uuid)).status).to.equal('Cancelled');
      // Refused while the other flight still held the airspace, the request is examined again once it gave it up.
      await waitFor(async () => (await read(waiting.body.data.uuid)).status === 'Approved', 20_000);
    }
  });

  it('POST /api/flight-requests: when flights overlap only in time or only in area, then both are Approved', async () => {
    const [a, b, c] = await operators(3);
    const start = hoursAhead(60);
    const answers = [
      await submit(a!, flight(a!, [9.0, 52.7], start)),
      await submit(b!, flight(b!, [9.05, 52.7], start)),
      await submit(c!, flight(c!, [9.0, 52.7], new Date(start.getTime() + HOUR))),
    ];
    expect(answers.map((answer) => answer.body.data.status)).to.deep.equal(['Approved', 'Approved', 'Approved']);
  });

  it('PATCH /api/operators/{uuid} then POST /api/flight-requests: when the CTR exemption is revoked, then the very next submission is screened without it, and a preview right after it is granted again applies it (20 times)', async () => {
    const zone = await client.send('POST', '/api/zones', {
      key: system.adminKey,
      body: {
        name: 'Test CTR',
        type: 'CTR',
        restriction: 'REQ_AUTHORISATION',
        lower_limit_m: 0,
        upper_limit_m: 900,
        authority: 'TOWER',
        ctr_exemption_ceiling_m: 150,
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [10.0, 52.6],
              [10.2, 52.6],
              [10.2, 52.8],
              [10.0, 52.8],
              [10.0, 52.6],
            ],
          ],
        },
      },
    });
    expect(zone.status, JSON.stringify(zone.body)).to.equal(201);
    const [operator] = await operators(1, { exemption_for_ctr: true, ctr_exemption_number: 'CTR-001' });
    const body = flight(operator!, [10.05, 52.65], hoursAhead(80));
    const codes = async () => {
      const preview = await client.send('POST', '/api/flight-requests/preview', { key: operator!.key, body });
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      return preview.body.data.findings.map((finding: { code: string }) => finding.code) as string[];
    };
    await waitFor(async () => (await codes()).includes('CTR_EXEMPTION_APPLIED'), 15_000);
    for (let round = 0; round < 20; round++) {
      const revoked = await client.send('PATCH', `/api/operators/${operator!.uuid}`, { key: operator!.key, body: { exemption_for_ctr: false } });
      expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
      const submitted = await submit(operator!, body);
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(201);
      expect(submitted.body.data.status, `round ${round}: revoked, submitted`).to.equal('Pending');
      expect(submitted.body.data.review.findings.map((finding: { code: string }) => finding.code)).not.to.include('CTR_EXEMPTION_APPLIED');
      const granted = await client.send('PATCH', `/api/operators/${operator!.uuid}`, {
        key: operator!.key,
        body: { exemption_for_ctr: true, ctr_exemption_number: 'CTR-001' },
      });
      expect(granted.status).to.equal(200);
      expect(await codes(), `round ${round}: granted`).to.include('CTR_EXEMPTION_APPLIED');
    }
  });

  it('POST /api/operators, then POST /api/flight-requests: when the broker is down, then an operator registered meanwhile can submit at once', async function () {
    if (!(await localStackRunning())) this.skip();
    await pause('broker');
    try {
      const [operator] = await operators(1);
      const submitted = await submit(operator!, flight(operator!, [11.0, 52.7], hoursAhead(90)));
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(201);
      expect(submitted.body.data.status).to.equal('Approved');
    } finally {
      await resume('broker');
    }
  });
});
