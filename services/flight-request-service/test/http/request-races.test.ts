import { expect } from 'chai';
import { waitFor, type CapturedEvents } from '@dfc/kit/testing';
import { RoutingKeys, type EventEnvelope, type FlightRequestStatusChanged } from '@dfc/contracts';
import { expirePendingRequests } from '../../src/use-cases/expire-pending-requests.js';
import { admin, operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { submission } from '../support/fixtures.js';

const HOUR = 3_600_000;
const ROUNDS = 5;

describe('races on one flight request', () => {
  let t: TestService;
  let operatorUuid: string;
  let events: CapturedEvents;

  before(async () => {
    t = await startTestService({ env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
    operatorUuid = await t.seedOperator();
    events = await t.captureEvents();
  });
  after(async () => {
    await events.close();
    await t.close();
  });

  /** A Pending request with one NATIONAL item (its altitude needs review), submitted through the API. */
  async function pendingRequest(): Promise<{ uuid: string; itemId: string }> {
    const created = await t.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(operatorUuid),
      body: submission(operatorUuid, { max_altitude: 200 }),
    });
    expect(created.body.data.status).to.equal('Pending');
    return { uuid: created.body.data.uuid, itemId: created.body.data.review.items[0].id };
  }

  const decide = (itemId: string, decision: 'approve' | 'reject') =>
    t.call('POST', `/api/reviews/${itemId}/decision`, { as: admin, body: { decision, reason: `${decision} in a race` } });
  const record = async (uuid: string) => (await t.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data;
  const statusChangesOf = (uuid: string) =>
    events.events.filter(
      (event) => event.type === RoutingKeys.flightRequestStatusChanged && (event.data as FlightRequestStatusChanged).flight_request_uuid === uuid,
    ) as EventEnvelope<FlightRequestStatusChanged>[];

  /** One status_changed per history entry, in order, numbered 1..n, each naming the status before it. */
  async function expectOneEventPerEntry(uuid: string, history: Array<{ status: string }>): Promise<void> {
    await waitFor(() => statusChangesOf(uuid).length >= history.length, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const published = statusChangesOf(uuid).map((event) => [event.data.sequence, event.data.previous_status, event.data.status]);
    expect(published).to.deep.equal(history.map((entry, index) => [index + 1, history[index - 1]?.status ?? null, entry.status]));
  }

  /** An approval that lost its race gives back the claim it was taking: only an Approved request holds airspace. */
  async function expectAirspaceHeldOnlyIfApproved(uuid: string): Promise<void> {
    const stored = await t.service.deps.requests.find(uuid);
    expect(stored?.deconfliction?.state ?? null).to.equal(stored?.status === 'Approved' ? 'held' : null);
  }

  it('POST /api/reviews/{id}/decision: when 20 decisions of one item race, then exactly one wins (one 200, nineteen 409) and one history entry is added', async () => {
    const { uuid, itemId } = await pendingRequest();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => decide(itemId, index % 2 === 0 ? 'approve' : 'reject')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(19);
    const winner = answers.find((answer) => answer.status === 200)!.body.data.flight_request.status;
    const after = await record(uuid);
    expect(after.status_history.map((entry: { status: string }) => entry.status)).to.deep.equal(['Pending', winner]);
    await expectAirspaceHeldOnlyIfApproved(uuid);
    await expectOneEventPerEntry(uuid, after.status_history);
  });

  it('when a cancellation, a decision and the expiry sweep race, then one of them wins and the history, the airspace held and events agree', async () => {
    const later = { ...t.service.deps, now: () => new Date(Date.now() + 2 * HOUR) };
    for (let round = 0; round < ROUNDS; round++) {
      const { uuid, itemId } = await pendingRequest();
      const [cancelled, decided, expired] = await Promise.all([
        t.call('DELETE', `/api/flight-requests/${uuid}`, { as: operatorPrincipal(operatorUuid), body: { reason: 'race' } }),
        decide(itemId, 'approve'),
        expirePendingRequests(later),
      ]);
      const wins = [cancelled.status === 200, decided.status === 200, expired > 0].filter(Boolean);
      expect(wins, `round ${round}`).to.have.length(1);
      for (const answer of [cancelled, decided]) expect([200, 409]).to.include(answer.status);
      const after = await record(uuid);
      const history = after.status_history.map((entry: { status: string }) => entry.status);
      expect(history).to.have.length(2);
      expect(history[0]).to.equal('Pending');
      expect(['Cancelled', 'Approved', 'Expired']).to.include(after.status);
      expect(history[1]).to.equal(after.status);
      await expectAirspaceHeldOnlyIfApproved(uuid);
      await expectOneEventPerEntry(uuid, after.status_history);
    }
  });
});
