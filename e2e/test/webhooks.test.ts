import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { verifyWebhookSignature } from '@dfc/contracts';
import { flightRequestBody, GatewayClient, WebhookReceiver } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/**
 * Webhooks end to end: a client registers, gets a key, registers an endpoint
 * on its own receiver through the gateway, submits a flight request, and a
 * signed status_change about that request arrives at the receiver.
 */
describe('webhooks through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;
  const receiver = new WebhookReceiver();

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' } });
    client = new GatewayClient(system.gatewayUrl);
    await receiver.start();
  });
  after(async () => {
    await receiver.close();
    await system?.stop();
  });

  it('when a client with a registered endpoint submits a flight request, then a signed status_change about it arrives', async () => {
    const operator = await client.registerOperatorWithKey();
    const registered = await client.send('POST', '/api/v1/webhooks', {
      key: operator.key,
      body: { url: receiver.url, events: ['status_change'], description: 'e2e' },
    });
    expect(registered.status).to.equal(201);
    const endpoint = registered.body.data as { id: string; secret: string };
    expect(endpoint.secret).to.match(/^whsec_/);

    const submitted = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(201);
    const flightUuid: string = submitted.body.data.uuid;

    const [delivery] = await waitFor(
      () => {
        const arrived = receiver.about(flightUuid, 'status_change');
        return arrived.length > 0 ? arrived : undefined;
      },
      20_000,
      50,
    );
    expect(delivery!.headers['x-webhook-event']).to.equal('status_change');
    expect(delivery!.body.event).to.equal('status_change');
    expect(delivery!.body.data['uuid']).to.equal(flightUuid);
    expect(delivery!.body.data['operator_uuid']).to.equal(operator.uuid);
    expect(delivery!.headers['x-webhook-id']).to.equal(delivery!.body.id);
    const verified = verifyWebhookSignature({
      rawBody: delivery!.rawBody,
      header: String(delivery!.headers['x-webhook-signature']),
      secrets: endpoint.secret,
    });
    expect(verified.valid).to.equal(true);

    const log = await waitFor(async () => {
      const page = await client.send('GET', `/api/webhooks/${endpoint.id}/deliveries`, { key: operator.key });
      const entries = page.body.data as Array<{ status: string; event_id: string }>;
      return entries.some((entry) => entry.event_id === delivery!.body.id && entry.status === 'succeeded') ? entries : undefined;
    }, 10_000);
    expect(log.length).to.be.greaterThan(0);
  });

  it("when another client submits, then the first client's endpoint receives nothing about it", async () => {
    const first = await client.registerOperatorWithKey();
    const second = await client.registerOperatorWithKey();
    const registered = await client.send('POST', '/api/webhooks', {
      key: first.key,
      body: { url: `${receiver.url}?owner=${first.uuid}`, events: ['status_change'] },
    });
    expect(registered.status).to.equal(201);
    const submitted = await client.send('POST', '/api/flight-requests', { key: second.key, body: flightRequestBody(second, {}, 4.8) });
    expect(submitted.status).to.equal(201);
    const flightUuid: string = submitted.body.data.uuid;
    // The second client has no endpoint; give the first one's a fair chance to receive something it must not.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.some((hook) => hook.rawBody.includes(flightUuid))).to.equal(false);
  });

  it("when a client reads another client's endpoint through the gateway, then 404 (and without a key 401)", async () => {
    const first = await client.registerOperatorWithKey();
    const second = await client.registerOperatorWithKey();
    const registered = await client.send('POST', '/api/webhooks', { key: first.key, body: { url: receiver.url, events: ['status_change'] } });
    const id: string = registered.body.data.id;
    expect((await client.send('GET', `/api/webhooks/${id}`, { key: second.key })).status).to.equal(404);
    expect((await client.send('GET', '/api/webhooks')).status).to.equal(401);
  });

  it("PATCH /api/operators/{uuid} with the password: when the login email changes, then the operator's endpoint, subscribed to status_change only, gets a signed credentials_changed naming the change", async () => {
    const operator = await client.registerOperatorWithKey();
    const registered = await client.send('POST', '/api/webhooks', { key: operator.key, body: { url: receiver.url, events: ['status_change'] } });
    expect(registered.status).to.equal(201);
    const endpoint = registered.body.data as { id: string; secret: string };
    const basic = `Basic ${Buffer.from(`${operator.email}:${operator.password}`).toString('base64')}`;
    const changed = await client.send('PATCH', `/api/operators/${operator.uuid}`, {
      key: operator.key,
      body: { email: `moved-${operator.email}` },
      headers: { authorization: basic },
    });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);

    const notice = await waitFor(
      () => receiver.received.find((hook) => hook.body.event === 'credentials_changed' && hook.body.data['operator_uuid'] === operator.uuid),
      20_000,
      50,
    );
    expect(notice.headers['x-webhook-event']).to.equal('credentials_changed');
    expect(notice.body.data).to.include({ operator_uuid: operator.uuid, key_id: null });
    expect(notice.body.data['changes']).to.deep.equal(['email']);
    expect(notice.rawBody, 'neither address').to.not.include(operator.email);
    expect(
      verifyWebhookSignature({ rawBody: notice.rawBody, header: String(notice.headers['x-webhook-signature']), secrets: endpoint.secret }).valid,
    ).to.equal(true);
  });
});
