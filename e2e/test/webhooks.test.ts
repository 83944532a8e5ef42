import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { verifyWebhookSignature } from '@dfc/contracts';
import { startSystem, type System } from '../src/system.js';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

/**
 * Webhooks end to end: a client registers, gets a key, registers an endpoint
 * on its own receiver through the gateway, submits a flight request, and a
 * signed status_change about that request arrives at the receiver.
 */
describe('webhooks through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let receiver: Server;
  let receiverUrl = '';
  const received: Received[] = [];

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' } });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    receiverUrl = `http://127.0.0.1:${address.port}/webhooks`;
  });
  after(async () => {
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await system?.stop();
  });

  const call = (path: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${system.gatewayUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function operatorWithKey(): Promise<{ uuid: string; key: string; email: string }> {
    const email = `hooks-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'correct-horse-battery';
    const registered = await call('/api/operators', 'POST', { company_name: 'Hooked Ltd', email, password, phone: '+47 22 00 00 00' });
    expect(registered.status).to.equal(201);
    const uuid = ((await registered.json()) as { data: { uuid: string } }).data.uuid;
    const basic = `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
    const issued = await call(`/api/operators/${uuid}/api-keys`, 'POST', { name: 'webhooks' }, { authorization: basic });
    expect(issued.status).to.equal(201);
    return { uuid, email, key: ((await issued.json()) as { data: { key: string } }).data.key };
  }

  function flightRequest(operatorUuid: string, email: string) {
    const start = new Date(Date.now() + 60 * 60 * 1000);
    const end = new Date(start.getTime() + 60 * 60 * 1000);
    const iso = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;
    return {
      operator_uuid: operatorUuid,
      operator_name: 'Kari Nordmann',
      operator_email: email,
      operator_phone: '+47 22 00 00 00',
      operator_company: 'Hooked Ltd',
      start_time: iso(start),
      end_time: iso(end),
      max_altitude: 100,
      aircraft_type: 'multirotor',
      purpose: 'Roof inspection',
      flight_area: {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: {},
            geometry: {
              type: 'Polygon',
              coordinates: [[[10.7, 59.9], [10.701, 59.9], [10.701, 59.901], [10.7, 59.901], [10.7, 59.9]]],
            },
          },
        ],
      },
    };
  }

  it('when a client with a registered endpoint submits a flight request, then a signed status_change about it arrives', async () => {
    const client = await operatorWithKey();
    const registered = await call('/api/v1/webhooks', 'POST', { url: receiverUrl, events: ['status_change'], description: 'e2e' }, { 'x-api-key': client.key });
    expect(registered.status).to.equal(201);
    const endpoint = ((await registered.json()) as { data: { id: string; secret: string } }).data;
    expect(endpoint.secret).to.match(/^whsec_/);

    const submitted = await call('/api/flight-requests', 'POST', flightRequest(client.uuid, client.email), { 'x-api-key': client.key });
    expect(submitted.status, await submitted.clone().text()).to.equal(201);
    const flightUuid = ((await submitted.json()) as { data: { uuid: string } }).data.uuid;

    const delivery = await waitFor(
      () => received.find((request) => (JSON.parse(request.rawBody) as { data?: { flight_request_uuid?: string } }).data?.flight_request_uuid === flightUuid),
      20_000,
      50,
    );
    expect(delivery.headers['x-webhook-event']).to.equal('status_change');
    const body = JSON.parse(delivery.rawBody) as { id: string; event: string; data: { uuid: string; operator_uuid: string; status: string } };
    expect(body.event).to.equal('status_change');
    expect(body.data.uuid).to.equal(flightUuid);
    expect(body.data.operator_uuid).to.equal(client.uuid);
    expect(delivery.headers['x-webhook-id']).to.equal(body.id);
    const verified = verifyWebhookSignature({ rawBody: delivery.rawBody, header: String(delivery.headers['x-webhook-signature']), secrets: endpoint.secret });
    expect(verified.valid).to.equal(true);

    const log = await waitFor(async () => {
      const response = await call(`/api/webhooks/${endpoint.id}/deliveries`, 'GET', undefined, { 'x-api-key': client.key });
      const page = (await response.json()) as { data: Array<{ status: string; event_id: string }> };
      return page.data.some((entry) => entry.event_id === body.id && entry.status === 'succeeded') ? page : undefined;
    }, 10_000);
    expect(log.data.length).to.be.greaterThan(0);
  });

  it('when another client submits, then the first client\'s endpoint receives nothing about it', async () => {
    const first = await operatorWithKey();
    const second = await operatorWithKey();
    const registered = await call('/api/webhooks', 'POST', { url: `${receiverUrl}?owner=${first.uuid}`, events: ['status_change'] }, { 'x-api-key': first.key });
    expect(registered.status).to.equal(201);
    const submitted = await call('/api/flight-requests', 'POST', flightRequest(second.uuid, second.email), { 'x-api-key': second.key });
    expect(submitted.status).to.equal(201);
    const flightUuid = ((await submitted.json()) as { data: { uuid: string } }).data.uuid;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(received.some((request) => request.rawBody.includes(flightUuid))).to.equal(false);
  });

  it('when a client reads another client\'s endpoint through the gateway, then 404 (and without a key 401)', async () => {
    const first = await operatorWithKey();
    const second = await operatorWithKey();
    const registered = await call('/api/webhooks', 'POST', { url: receiverUrl, events: ['status_change'] }, { 'x-api-key': first.key });
    const id = ((await registered.json()) as { data: { id: string } }).data.id;
    expect((await call(`/api/webhooks/${id}`, 'GET', undefined, { 'x-api-key': second.key })).status).to.equal(404);
    expect((await call('/api/webhooks', 'GET')).status).to.equal(401);
  });
});
