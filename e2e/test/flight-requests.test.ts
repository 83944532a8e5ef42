import { expect } from 'chai';
import { captureEvents, waitFor, type CapturedEvents } from '@dfc/kit/testing';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/**
 * Flight requests end to end, through the gateway as a client sees it: an
 * operator registers and gets a key, submits, reads, lists and cancels; an
 * admin adds a geo-zone and a reviewer key; the reviewer approves the review
 * item. And the outbox's promise: an event written but not yet published
 * when the service dies is published after it restarts.
 */
/** Calls through the gateway as an operator's client makes them. */
function helpers(system: () => System) {
  const gateway = () => new GatewayClient(system().gatewayUrl);
  const send = (method: string, path: string, key: string, body?: unknown) =>
    gateway().send(method, path, { key, ...(body === undefined ? {} : { body }) });

  const newClient = async (): Promise<RegisteredOperator> => {
    const operator = await gateway().registerOperatorWithKey({ timezone: 'Europe/Amsterdam' });
    // The projection is fed by an event: until it arrives the operator is unknown (422 on operator_uuid).
    await waitFor(async () => (await send('GET', '/api/flight-requests', operator.key)).status === 200, 15_000);
    return operator;
  };

  /** Submits until the operator projection has caught up; any other answer is returned. */
  const submit = async (client: RegisteredOperator, body: unknown) =>
    waitFor(async () => {
      const response = await send('POST', '/api/flight-requests', client.key, body);
      return response.status === 422 && response.body.errors?.operator_uuid ? undefined : response;
    }, 15_000);

  return { send, newClient, submit };
}

const forRequest = (uuid: string, type: string) => (event: EventEnvelope) =>
  event.type === type && (event.data as { flight_request_uuid?: string }).flight_request_uuid === uuid;

describe('flight requests through the gateway', function () {
  this.timeout(180_000);
  let system: System;
  let events: CapturedEvents;
  const { send, newClient, submit } = helpers(() => system);

  before(async () => {
    system = await startSystem({ services: ['operator-service', 'flight-request-service', 'gateway'] });
    events = await captureEvents(system.amqpUrl, system.exchange, ['flight_request.#']);
  });
  after(async () => {
    await events?.close();
    await system?.stop();
  });

  it('an operator submits, reads (under /api/v1 too), lists and cancels; a reviewer approves what a zone sent to review', async () => {
    const client = await newClient();

    const created = await submit(client, flightRequestBody(client, {}, 4.89));
    expect(created.status).to.equal(201);
    expect(created.body.data.status).to.equal('Approved');
    const uuid = created.body.data.uuid as string;
    expect(created.headers.get('location')).to.equal(`${system.gatewayUrl}/api/v1/flight-requests/${uuid}`);

    const fetched = await send('GET', `/api/v1/flight-requests/${uuid}?include_geometry=true`, client.key);
    expect(fetched.status).to.equal(200);
    expect(fetched.body.data.flight_area.type).to.equal('FeatureCollection');
    const listed = await send('GET', '/api/flight-requests?status=approved&per_page=5', client.key);
    expect(listed.body.data.map((record: { uuid: string }) => record.uuid)).to.include(uuid);
    expect(listed.body.meta.path).to.equal(`${system.gatewayUrl}/api/flight-requests`);

    const zone = await send('POST', '/api/zones', system.adminKey, {
      name: 'Test CTR',
      type: 'CTR',
      restriction: 'REQ_AUTHORISATION',
      lower_limit_m: 0,
      upper_limit_m: 1000,
      authority: 'LVNL',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [5.0, 52.0],
            [5.5, 52.0],
            [5.5, 52.5],
            [5.0, 52.5],
            [5.0, 52.0],
          ],
        ],
      },
    });
    expect(zone.status).to.equal(201);
    const reviewerKey = await send('POST', '/api/api-keys', system.adminKey, { name: 'lvnl desk', role: 'reviewer', authority: 'LVNL' });
    expect(reviewerKey.status).to.equal(201);
    const reviewer = reviewerKey.body.data.key as string;

    const pending = await submit(client, flightRequestBody(client, {}, 5.2));
    expect(pending.body.data.status).to.equal('Pending');
    // The review queue is a projection of the requests' events: the item appears a moment after the submission.
    const item = await waitFor(async () =>
      (await send('GET', '/api/reviews', reviewer)).body.data.find(
        (entry: { flight_request: { uuid: string } }) => entry.flight_request.uuid === pending.body.data.uuid,
      ),
    );
    expect(item).to.include({ authority: 'LVNL', status: 'pending' });
    const decided = await send('POST', `/api/reviews/${item.id}/decision`, reviewer, { decision: 'approve', reason: 'Coordinated with the tower' });
    expect(decided.status).to.equal(200);
    expect(decided.body.data.flight_request.status).to.equal('Approved');
    const approvedEvent = await events.next(
      (event) =>
        forRequest(pending.body.data.uuid, RoutingKeys.flightRequestStatusChanged)(event) && (event.data as { status: string }).status === 'Approved',
      10_000,
    );
    expect(approvedEvent.data).to.include({ actor: 'reviewer:LVNL', previous_status: 'Pending' });
    await events.next(forRequest(pending.body.data.uuid, RoutingKeys.flightRequestReviewCompleted), 10_000);

    const cancelled = await send('DELETE', `/api/flight-requests/${uuid}`, client.key, { reason: 'Weather' });
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body.data.status).to.equal('Cancelled');
    const again = await send('DELETE', `/api/flight-requests/${uuid}`, client.key, { reason: 'Weather' });
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal('A Cancelled flight request cannot be cancelled.');

    const other = await newClient();
    expect((await send('GET', `/api/flight-requests/${uuid}`, other.key)).status).to.equal(404);
    expect((await send('POST', '/api/zones', other.key, {})).status).to.equal(403);
  });

  it('without a key, 401; with a malformed body, 400 — both as JSON with a request id', async () => {
    const anonymous = await fetch(`${system.gatewayUrl}/api/flight-requests`);
    expect(anonymous.status).to.equal(401);
    const client = await newClient();
    const malformed = await fetch(`${system.gatewayUrl}/api/flight-requests`, {
      method: 'POST',
      headers: { 'x-api-key': client.key, 'content-type': 'application/json' },
      body: '{"operator_uuid":',
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.headers.get('x-request-id')).to.be.a('string');
  });
});

describe('flight request events survive a crash between the write and the publish', function () {
  this.timeout(180_000);
  let system: System;
  let events: CapturedEvents;
  const { newClient, submit } = helpers(() => system);

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'flight-request-service', 'gateway'],
      serviceEnv: { 'flight-request-service': { OUTBOX_PUBLISH: 'false' } },
    });
    events = await captureEvents(system.amqpUrl, system.exchange, ['flight_request.#']);
  });
  after(async () => {
    await events?.close();
    await system?.stop();
  });

  it('when the service is killed with the event still in its outbox, then the restarted service publishes it', async () => {
    const client = await newClient();
    const created = await submit(client, flightRequestBody(client, {}, 4.89));
    expect(created.status).to.equal(201);
    const uuid = created.body.data.uuid as string;

    await system.kill('flight-request-service', 'SIGKILL');
    expect(events.events.filter(forRequest(uuid, RoutingKeys.flightRequestStatusChanged))).to.deep.equal([]);

    await system.start('flight-request-service', { OUTBOX_PUBLISH: 'true' });
    const first = await events.next(forRequest(uuid, RoutingKeys.flightRequestStatusChanged), 20_000);
    expect(first.operator_uuid).to.equal(client.uuid);
    await waitFor(() => events.events.filter(forRequest(uuid, RoutingKeys.flightRequestStatusChanged)).length >= 2, 10_000);
    const statuses = events.events
      .filter(forRequest(uuid, RoutingKeys.flightRequestStatusChanged))
      .map((event) => (event.data as { status: string }).status);
    expect(statuses).to.deep.equal(['Pending', 'Approved']);
  });
});
