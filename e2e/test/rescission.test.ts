import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, WebhookReceiver, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/**
 * Dynamic restrictions end to end: an operator's flights are decided, then an
 * admin creates a temporary prohibited zone over them (an emergency). The
 * approved flight is rescinded and the operator's receiver hears it as a
 * status_change; every status_change of one request carries a `sequence`
 * that rises by one per status-history entry, with no gap.
 */
describe('rescission and ordered webhooks through the gateway', function () {
  this.timeout(180_000);
  let system: System;
  let gateway: GatewayClient;
  let client: RegisteredOperator;
  const receiver = new WebhookReceiver();

  const submit = (body: unknown) =>
    waitFor(async () => {
      const response = await gateway.send('POST', '/api/flight-requests', { key: client.key, body });
      return response.status === 422 && response.body.errors?.operator_uuid ? undefined : response;
    }, 15_000);
  const statusChanges = (uuid: string) => receiver.about(uuid, 'status_change').map((webhook) => webhook.body.data);

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' } });
    gateway = new GatewayClient(system.gatewayUrl);
    await receiver.start();
    client = await gateway.registerOperatorWithKey();
    const subscribed = await gateway.send('POST', '/api/webhooks', { key: client.key, body: { url: receiver.url, events: ['status_change'] } });
    expect(subscribed.status).to.equal(201);
  });
  after(async () => {
    await receiver.close();
    await system?.stop();
  });

  it('a new prohibited zone rescinds an approved flight: the receiver gets Rescinded with the reason, and sequences 1, 2, 3 without a gap', async () => {
    const approved = await submit(flightRequestBody(client, {}, 6.31));
    expect(approved.status).to.equal(201);
    expect(approved.body.data.status).to.equal('Approved');
    const uuid = approved.body.data.uuid as string;
    await waitFor(() => (statusChanges(uuid).length === 2 ? true : undefined), 20_000, 50);

    const zone = await gateway.send('POST', '/api/v1/zones', {
      key: system.adminKey,
      body: {
        name: 'Emergency closure',
        type: 'TEMPORARY',
        restriction: 'PROHIBITED',
        lower_limit_m: 0,
        upper_limit_m: 1000,
        authority: 'POLICE',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [6.3, 51.99],
              [6.32, 51.99],
              [6.32, 52.01],
              [6.3, 52.01],
              [6.3, 51.99],
            ],
          ],
        },
      },
    });
    expect(zone.status).to.equal(201);

    const changes = await waitFor(
      () => {
        const received = statusChanges(uuid);
        return received.some((data) => data['status'] === 'Rescinded') ? received : undefined;
      },
      30_000,
      50,
    );
    const rescinded = changes.find((data) => data['status'] === 'Rescinded')!;
    expect(rescinded).to.include({ previous_status: 'Approved', actor: 'screening' });
    expect(String(rescinded['reason'])).to.include(zone.body.data.id);
    const ordered = [...changes].sort((a, b) => Number(a['sequence']) - Number(b['sequence']));
    expect(ordered.map((data) => [data['sequence'], data['status']])).to.deep.equal([
      [1, 'Pending'],
      [2, 'Approved'],
      [3, 'Rescinded'],
    ]);

    const record = await gateway.send('GET', `/api/v1/flight-requests/${uuid}`, { key: client.key });
    expect(record.body.data.status).to.equal('Rescinded');
    expect(record.body.data.rescission).to.include({ zone_id: zone.body.data.id, zone_name: 'Emergency closure' });
    expect(record.body.data.status_history).to.have.length(3);
  });

  it('a pending flight’s webhooks through a review carry sequences 1, 2 in order of its history', async () => {
    const pending = await submit(flightRequestBody(client, { max_altitude: 200 }, 6.41));
    expect(pending.body.data.status).to.equal('Pending');
    const uuid = pending.body.data.uuid as string;
    const [item] = pending.body.data.review.items as Array<{ id: string }>;
    const decided = await gateway.send('POST', `/api/reviews/${item!.id}/decision`, {
      key: system.adminKey,
      body: { decision: 'approve', reason: 'Cleared' },
    });
    expect(decided.status).to.equal(200);
    const changes = await waitFor(() => (statusChanges(uuid).length === 2 ? statusChanges(uuid) : undefined), 20_000, 50);
    const history = (await gateway.send('GET', `/api/flight-requests/${uuid}`, { key: client.key })).body.data.status_history as Array<{
      status: string;
    }>;
    const bySequence = [...changes].sort((a, b) => Number(a['sequence']) - Number(b['sequence']));
    expect(bySequence.map((data) => data['status'])).to.deep.equal(history.map((entry) => entry.status));
    expect(bySequence.map((data) => data['sequence'])).to.deep.equal([1, 2]);
  });
});
