import { expect } from 'chai';
import { RoutingKeys, type FlightRequestStatus } from '@dfc/contracts';
import type { CapturedEvents } from '@dfc/kit/testing';
import { expirePendingRequests } from '../../src/use-cases/expire-pending-requests.js';
import { waitFor } from '@dfc/kit/testing';
import { admin, startTestService, type TestService } from '../support/test-service.js';
import { insertStored, storedRequest } from '../support/stored-request.js';

const MINUTE = 60_000;

describe('expirePendingRequests (the expiry sweep)', () => {
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

  async function stored(status: FlightRequestStatus, startOffsetMs: number) {
    const start = new Date(Date.now() + startOffsetMs);
    const request = storedRequest({
      operatorUuid,
      status,
      start,
      end: new Date(start.getTime() + 60 * MINUTE),
      items: [{ authority: 'NATIONAL', kind: 'altitude' }],
    });
    await insertStored(t, request);
    return request;
  }
  const record = async (uuid: string) => (await t.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data;

  it('when a Pending request’s start has passed, then it becomes Expired, its items are withdrawn and status_changed is published', async () => {
    const overdue = await stored('Pending', -MINUTE);
    const upcoming = await stored('Pending', 30 * MINUTE);
    expect(await expirePendingRequests(t.service.deps)).to.be.at.least(1);
    const expired = await record(overdue._id);
    expect(expired.status).to.equal('Expired');
    expect(expired.status_history.at(-1)).to.include({ status: 'Expired', actor: 'system' });
    expect(expired.review.items[0].status).to.equal('withdrawn');
    expect((await record(upcoming._id)).status).to.equal('Pending');
    const event = await events.next(
      (candidate) =>
        candidate.type === RoutingKeys.flightRequestStatusChanged &&
        (candidate.data as { flight_request_uuid: string }).flight_request_uuid === overdue._id,
    );
    expect(event.data).to.include({ previous_status: 'Pending', status: 'Expired', actor: 'system' });
  });

  it('when the sweep runs again, then an Expired request is left alone', async () => {
    const overdue = await stored('Pending', -MINUTE);
    await expirePendingRequests(t.service.deps);
    const once = await record(overdue._id);
    expect(await expirePendingRequests(t.service.deps)).to.equal(0);
    expect((await record(overdue._id)).status_history).to.deep.equal(once.status_history);
  });

  it('when an Approved request’s start has passed, then it stays Approved', async () => {
    const approved = await stored('Approved', -MINUTE);
    await expirePendingRequests(t.service.deps);
    expect((await record(approved._id)).status).to.equal('Approved');
  });

  it('when a decision and the sweep race, then exactly one of them changes the request', async () => {
    const overdue = await stored('Pending', -MINUTE);
    const itemId = overdue.review.items[0]!.id;
    const [decision] = await Promise.all([
      t.call('POST', `/api/reviews/${itemId}/decision`, { as: admin, body: { decision: 'approve', reason: 'late but fine' } }),
      expirePendingRequests(t.service.deps),
    ]);
    const after = await record(overdue._id);
    const history = after.status_history.map((entry: { status: string }) => entry.status);
    expect(history).to.have.length(2);
    if (decision.status === 200) expect(after.status).to.equal('Approved');
    else {
      expect(decision.status).to.equal(409);
      expect(after.status).to.equal('Expired');
    }
  });

  it('when two sweeps run at once (two replicas), then each request expires once', async () => {
    const overdue = await stored('Pending', -MINUTE);
    await Promise.all([expirePendingRequests(t.service.deps), expirePendingRequests(t.service.deps)]);
    const history = (await record(overdue._id)).status_history.map((entry: { status: string }) => entry.status);
    expect(history).to.deep.equal(['Pending', 'Expired']);
  });
});

describe('the expiry sweep on two replicas (its lease)', function () {
  this.timeout(60_000);
  const INTERVAL_MS = 200;
  let one: TestService;
  let two: TestService | undefined;

  before(async () => {
    one = await startTestService({ env: { EXPIRY_SWEEP_INTERVAL_MS: String(INTERVAL_MS) } });
    two = await startTestService({ shared: one.shared, env: { EXPIRY_SWEEP_INTERVAL_MS: String(INTERVAL_MS) } });
  });
  after(async () => {
    await two?.close();
    await one.close();
  });

  const lease = () => one.connection.db!.collection<{ _id: string; owner: string; expires_at: Date }>('leases').findOne({ _id: 'expiry-sweep' });
  const overdueRequest = async (operatorUuid: string) => {
    const start = new Date(Date.now() - MINUTE);
    const request = storedRequest({ operatorUuid, status: 'Pending', start, end: new Date(start.getTime() + 60 * MINUTE) });
    await insertStored(one, request);
    return request._id;
  };
  const status = async (uuid: string) => (await one.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data.status as string;

  it('when both replicas sweep every 200 ms, then one of them holds the lease round after round and expires each overdue request once', async () => {
    const operatorUuid = await one.seedOperator();
    const uuid = await overdueRequest(operatorUuid);
    await waitFor(async () => ((await status(uuid)) === 'Expired' ? true : undefined), 10_000);
    const holder = (await lease())?.owner;
    expect(holder).to.be.a('string');
    await new Promise((resolve) => setTimeout(resolve, 5 * INTERVAL_MS));
    expect((await lease())?.owner, 'the same holder, five rounds later').to.equal(holder);
    const history = (await one.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data.status_history;
    expect(history.map((entry: { status: string }) => entry.status)).to.deep.equal(['Pending', 'Expired']);
  });

  it('when one replica stops, then the one left holds the lease and sweeps', async () => {
    await two!.close();
    two = undefined;
    const uuid = await overdueRequest(await one.seedOperator());
    await waitFor(async () => ((await status(uuid)) === 'Expired' ? true : undefined), 10_000);
    const after = await lease();
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS));
    const later = await lease();
    expect(later?.expires_at.getTime(), 'renewed by the replica left').to.be.greaterThan(after!.expires_at.getTime());
  });
});
