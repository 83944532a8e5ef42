import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RoutingKeys, type FlightRequestStatus } from '@dfc/contracts';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { submission } from '../support/fixtures.js';
import { insertStored, storedRequest } from '../support/stored-request.js';

const HOUR = 3_600_000;

describe('DELETE /api/flight-requests/{uuid}', () => {
  let t: TestService;
  let operatorUuid: string;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
  });
  after(async () => t.close());

  const as = () => operatorPrincipal(operatorUuid);
  const submit = async (overrides: Record<string, unknown> = {}) =>
    (await t.call('POST', '/api/flight-requests', { as: as(), body: submission(operatorUuid, overrides) })).body.data;
  const cancel = (uuid: string, body: unknown = { reason: 'Weather' }, principal = as()) =>
    t.call('DELETE', `/api/flight-requests/${uuid}`, { as: principal, body });

  async function stored(status: FlightRequestStatus, start: Date, end: Date): Promise<string> {
    const request = storedRequest({ operatorUuid, status, start, end });
    await insertStored(t, request);
    return request._id;
  }

  it('when a Pending request is cancelled, then 200 Cancelled, its items withdrawn and a status_changed event', async () => {
    const events = await t.captureEvents();
    try {
      const pending = await submit({ max_altitude: 200 });
      expect(pending.status).to.equal('Pending');
      const response = await cancel(pending.uuid, { reason: 'Weather' });
      expect(response.status).to.equal(200);
      const record = response.body.data;
      expect(record.status).to.equal('Cancelled');
      expect(record.cancellation.reason).to.equal('Weather');
      expect(record.cancellation.cancelled_at).to.match(/\+00:00$/);
      expect(record.review.items.map((item: { status: string }) => item.status)).to.deep.equal(['withdrawn']);
      expect(record.review.complete).to.equal(true);
      expect(record.status_history.at(-1)).to.include({ status: 'Cancelled', actor: 'operator', reason: 'Weather' });
      const event = await events.next(
        (candidate) =>
          candidate.type === RoutingKeys.flightRequestStatusChanged &&
          (candidate.data as { flight_request_uuid: string; status: string }).flight_request_uuid === pending.uuid &&
          (candidate.data as { status: string }).status === 'Cancelled',
      );
      expect(event.data).to.include({ previous_status: 'Pending', reason: 'Weather', actor: 'operator' });
      const queue = await t.call('GET', '/api/reviews', { as: reviewerPrincipal('NATIONAL') });
      expect(queue.body.data.some((entry: { flight_request: { uuid: string } }) => entry.flight_request.uuid === pending.uuid)).to.equal(false);
    } finally {
      await events.close();
    }
  });

  it('when an Approved request is cancelled before its window ends, then 200', async () => {
    const approved = await submit();
    expect(approved.status).to.equal('Approved');
    const response = await cancel(approved.uuid);
    expect(response.status).to.equal(200);
    expect(response.body.data.status).to.equal('Cancelled');
  });

  it('when an admin cancels any operator’s request, then 200 and the history names the admin', async () => {
    const approved = await submit();
    const response = await cancel(approved.uuid, { reason: 'Airspace closed' }, admin);
    expect(response.status).to.equal(200);
    expect(response.body.data.status_history.at(-1).actor).to.equal('admin');
  });

  for (const status of ['Rejected', 'Cancelled', 'Expired'] as const) {
    it(`when the request is ${status}, then 409 saying a ${status} request cannot be cancelled`, async () => {
      const uuid = await stored(status, new Date(Date.now() + HOUR), new Date(Date.now() + 2 * HOUR));
      const response = await cancel(uuid);
      expect(response.status).to.equal(409);
      expect(response.body.message).to.equal(`${status === 'Expired' ? 'An' : 'A'} ${status} flight request cannot be cancelled.`);
    });
  }

  it('when the window of an Approved request has ended, then 409 naming the ended window', async () => {
    const uuid = await stored('Approved', new Date(Date.now() - 3 * HOUR), new Date(Date.now() - HOUR));
    const response = await cancel(uuid);
    expect(response.status).to.equal(409);
    expect(response.body.message).to.equal('A flight request whose flight window has ended cannot be cancelled.');
  });

  it('when the reason is missing or longer than 500, then 422 and the request is unchanged', async () => {
    const approved = await submit();
    for (const body of [{}, { reason: '' }, { reason: 'r'.repeat(501) }]) {
      const response = await cancel(approved.uuid, body);
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.have.keys('reason');
    }
    expect((await cancel(approved.uuid, { reason: 'r'.repeat(500) })).status).to.equal(200);
  });

  it('when another operator cancels, then 404; when a reviewer does, then 403', async () => {
    const approved = await submit();
    expect((await cancel(approved.uuid, { reason: 'x' }, operatorPrincipal(randomUUID()))).status).to.equal(404);
    expect((await cancel(approved.uuid, { reason: 'x' }, reviewerPrincipal('NATIONAL'))).status).to.equal(403);
    const unchanged = await t.call('GET', `/api/flight-requests/${approved.uuid}`, { as: as() });
    expect(unchanged.body.data.status).to.equal('Approved');
  });
});
