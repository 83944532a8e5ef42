import { expect } from 'chai';
import { boxRing } from '@dfc/contracts';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { waitFor } from '@dfc/kit/testing';
import { zoneChanged } from '../../services/flight-request-service/src/domain/events/zone-events.js';
import { flightRequestBody, GatewayClient, WebhookReceiver, type ReceivedWebhook, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

type Data = Record<string, unknown>;

/** A zone of the own format around a flight of `flightRequestBody` at `lon`. */
function zoneAround(lon: number, fields: Record<string, unknown>) {
  return {
    name: 'Zone',
    type: 'OTHER',
    lower_limit_m: 0,
    upper_limit_m: 1000,
    geometry: {
      type: 'Polygon',
      coordinates: [boxRing([lon - 0.01, 51.99], [0.03, 0.02])],
    },
    ...fields,
  };
}

/** One ED-318 zone over the square of `flightRequestBody` at `lon` (the `index`-th zone of a dataset when many). */
function ed318Zone(identifier: string, lon: number, properties: Record<string, unknown>, lat = 52) {
  return {
    type: 'Feature',
    geometry: {
      type: 'Polygon',
      coordinates: [boxRing([lon - 0.01, lat - 0.01], [0.03, 0.02])],
      layer: { upper: 500, upperReference: 'AGL', lower: 0, lowerReference: 'AGL', uom: 'm' },
    },
    properties: {
      identifier,
      country: 'CHE',
      name: [{ text: `Zone ${identifier}`, lang: 'en-GB' }],
      variant: 'COMMON',
      reason: ['OTHER'],
      zoneAuthority: [{ name: [{ text: 'FOCA', lang: 'en-GB' }], purpose: 'INFORMATION', email: 'zones@example.org' }],
      ...properties,
    },
  };
}

function ed318(provider: string, issued: Date, features: unknown[]) {
  return { type: 'FeatureCollection', metadata: { provider: [{ text: provider, lang: 'en-GB' }], issued: issued.toISOString() }, features };
}

/**
 * Restriction notices end to end, through the gateway: a zone created, changed,
 * re-issued or lifted over a live flight request tells its operator
 * (`restriction_notice`), suspends an approval a new authorisation zone
 * covers until that authority decides, and reinstates it when the zone is
 * lifted. Each story flies at a longitude of its own.
 */
describe('restriction notices, suspension and reinstatement through the gateway', function () {
  this.timeout(240_000);
  let system: System;
  let gateway: GatewayClient;
  let client: RegisteredOperator;
  let reviewerKey: string;
  const receiver = new WebhookReceiver();
  const AUTHORITY = 'HARBOUR';

  const submit = (body: unknown) =>
    waitFor(async () => {
      const response = await gateway.send('POST', '/api/flight-requests', { key: client.key, body });
      return response.status === 422 && response.body.errors?.operator_uuid ? undefined : response;
    }, 15_000);
  const read = async (uuid: string) => (await gateway.send('GET', `/api/v1/flight-requests/${uuid}`, { key: client.key })).body.data;
  const until = (uuid: string, status: string) =>
    waitFor(async () => {
      const record = await read(uuid);
      return record.status === status ? record : undefined;
    }, 30_000);
  const hooks = (uuid: string, event: string): Data[] => receiver.about(uuid, event).map((hook: ReceivedWebhook) => hook.body.data);
  const hooksUntil = (uuid: string, event: string, count: number) =>
    waitFor(() => (hooks(uuid, event).length >= count ? hooks(uuid, event) : undefined), 30_000, 50);
  const approvedAt = async (lon: number) => {
    const answer = await submit(flightRequestBody(client, {}, lon));
    expect(answer.status).to.equal(201);
    expect(answer.body.data.status).to.equal('Approved');
    return answer.body.data.uuid as string;
  };
  const authorisation = async (uuid: string) =>
    (await gateway.send('GET', `/api/v1/flight-requests/${uuid}/authorisation`, { key: client.key })).body?.data;
  const tokenStatus = async (jti: string) => (await gateway.send('GET', `/api/v1/authorisations/${jti}`)).body.data.status as string;
  const createZone = async (body: unknown) => {
    const created = await gateway.send('POST', '/api/v1/zones', { key: system.adminKey, body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.data.id as string;
  };

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' } });
    gateway = new GatewayClient(system.gatewayUrl);
    await receiver.start();
    client = await gateway.registerOperatorWithKey();
    const subscribed = await gateway.send('POST', '/api/webhooks', {
      key: client.key,
      body: { url: receiver.url, events: ['status_change', 'review_complete', 'restriction_notice'] },
    });
    expect(subscribed.status).to.equal(201);
    const reviewer = await gateway.send('POST', '/api/api-keys', {
      key: system.adminKey,
      body: { role: 'reviewer', authority: AUTHORITY, name: 'Harbour desk' },
    });
    expect(reviewer.status).to.equal(201);
    reviewerKey = reviewer.body.data.key as string;
  });
  after(async () => {
    await receiver.close();
    await system?.stop();
  });

  it('POST /api/zones: a new REQ_AUTHORISATION zone over an Approved flight suspends it with an item for the authority, a notice and a status_change; the authority approves → Approved with a new authorisation', async () => {
    const uuid = await approvedAt(7.11);
    const first = await authorisation(uuid);
    expect(await tokenStatus(first.jti)).to.equal('valid');

    const zoneId = await createZone(zoneAround(7.11, { name: 'Harbour works', restriction: 'REQ_AUTHORISATION', authority: AUTHORITY }));
    const suspended = await until(uuid, 'Suspended');
    expect(suspended.suspension.zone_ids).to.deep.equal([zoneId]);
    const item = suspended.review.items.find((candidate: Data) => candidate['zone_id'] === zoneId);
    expect(item).to.include({ kind: 'zone_authorisation', authority: AUTHORITY, status: 'pending' });

    const [notice] = await hooksUntil(uuid, 'restriction_notice', 1);
    expect(notice).to.deep.include({ status: 'Suspended', effect: 'suspended', volume: 0, sequence: 3 });
    expect(notice!['zone']).to.deep.include({ id: zoneId, name: 'Harbour works', restriction: 'REQ_AUTHORISATION', authority: AUTHORITY });
    expect(notice!['finding']).to.include({ code: 'ZONE_REQUIRES_AUTHORISATION', authority: AUTHORITY });
    const changes = await hooksUntil(uuid, 'status_change', 3);
    expect(changes.find((data) => data['status'] === 'Suspended')).to.include({ previous_status: 'Approved', actor: 'screening', sequence: 3 });
    expect(await tokenStatus(first.jti)).to.equal('suspended');
    expect((await gateway.send('GET', `/api/v1/flight-requests/${uuid}/authorisation`, { key: client.key })).status).to.equal(404);

    const queue = await waitFor(async () => {
      const answer = await gateway.send('GET', '/api/reviews', { key: reviewerKey });
      return answer.body.data.some((entry: { id: string }) => entry.id === item.id) ? answer.body.data : undefined;
    }, 20_000);
    expect(queue).to.not.equal(undefined);
    const decided = await gateway.send('POST', `/api/reviews/${item.id as string}/decision`, {
      key: reviewerKey,
      body: { decision: 'approve', reason: 'Coordinated with the harbour master' },
    });
    expect(decided.status, JSON.stringify(decided.body)).to.equal(200);
    const approved = await until(uuid, 'Approved');
    expect(approved.suspension).to.equal(null);
    expect(approved.status_history.map((entry: Data) => entry['status'])).to.deep.equal(['Pending', 'Approved', 'Suspended', 'Approved']);
    const second = await authorisation(uuid);
    expect(second.jti).to.not.equal(first.jti);
    expect(await tokenStatus(second.jti)).to.equal('valid');
    expect(await tokenStatus(first.jti)).to.equal('revoked');
    const reapproved = (await hooksUntil(uuid, 'status_change', 4)).find((data) => data['sequence'] === 4);
    expect(reapproved).to.include({ previous_status: 'Suspended', status: 'Approved', actor: `reviewer:${AUTHORITY}` });
  });

  it('DELETE /api/zones/{id}: lifting the zone that suspended an approval reinstates it (status_change) and withdraws its review item', async () => {
    const uuid = await approvedAt(7.21);
    const zoneId = await createZone(zoneAround(7.21, { name: 'Crane lift', restriction: 'REQ_AUTHORISATION', authority: AUTHORITY }));
    const suspended = await until(uuid, 'Suspended');
    const item = suspended.review.items.find((candidate: Data) => candidate['zone_id'] === zoneId);

    expect((await gateway.send('DELETE', `/api/v1/zones/${zoneId}`, { key: system.adminKey })).status).to.equal(204);
    const reinstated = await until(uuid, 'Approved');
    expect(reinstated.suspension).to.equal(null);
    expect(reinstated.review.items.find((candidate: Data) => candidate['id'] === item.id)).to.include({ status: 'withdrawn' });
    const change = (await hooksUntil(uuid, 'status_change', 4)).find((data) => data['sequence'] === 4);
    expect(change).to.include({ previous_status: 'Suspended', status: 'Approved', actor: 'screening' });
    expect(String(change!['reason'])).to.include(zoneId);
    expect(await tokenStatus((await authorisation(uuid)).jti)).to.equal('valid');
    const queue = await gateway.send('GET', '/api/reviews', { key: reviewerKey });
    expect(queue.body.data.map((entry: { id: string }) => entry.id)).to.not.include(item.id);
  });

  it('POST /api/zones/import: a re-issued NO_RESTRICTION zone changed to CONDITIONAL over a Pending flight sends a notice with each published message; its redelivered zone.changed sends nothing twice', async () => {
    const pending = await submit(flightRequestBody(client, { max_altitude: 200 }, 7.31));
    expect(pending.body.data.status).to.equal('Pending');
    const uuid = pending.body.data.uuid as string;
    const issued = new Date();
    const first = await gateway.send('POST', '/api/zones/import', {
      key: system.adminKey,
      body: ed318('Notice test authority', issued, [
        ed318Zone('NTC001', 7.31, { type: 'NO_RESTRICTION', message: [{ text: 'Model flying field: keep below 50 m.', lang: 'en-GB' }] }),
      ]),
    });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const [information] = await hooksUntil(uuid, 'restriction_notice', 1);
    expect(information).to.deep.include({ status: 'Pending', effect: 'notice', message: 'Model flying field: keep below 50 m.' });
    expect(information!['zone']).to.deep.include({ id: 'CHE.NTC001', identifier: 'NTC001', country: 'CHE', restriction: 'NO_RESTRICTION' });
    expect(information!['finding']).to.include({ code: 'ZONE_INFORMATION' });

    const second = await gateway.send('POST', '/api/zones/import', {
      key: system.adminKey,
      body: ed318('Notice test authority', new Date(issued.getTime() + 60_000), [
        ed318Zone('NTC001', 7.31, {
          type: 'CONDITIONAL',
          message: [{ text: 'Nesting season: fly above 120 m only with a spotter.', lang: 'en-GB' }],
        }),
      ]),
    });
    expect(second.status, JSON.stringify(second.body)).to.equal(200);
    expect(second.body.data).to.include({ updated: 1 });
    const notices = await hooksUntil(uuid, 'restriction_notice', 2);
    expect(notices[1]).to.deep.include({ status: 'Pending', effect: 'notice', message: 'Nesting season: fly above 120 m only with a spotter.' });
    expect(notices[1]!['finding']).to.include({ code: 'ZONE_CONDITIONAL' });
    expect(notices[1]!['messages']).to.deep.equal([{ text: 'Nesting season: fly above 120 m only with a spotter.', lang: 'en-GB' }]);

    // The same zone version's event again, then a sentinel zone's on the same queue: once the sentinel's notice
    // is in, the redelivered event has been handled before it.
    const broker = await Broker.connect(system.amqpUrl, system.exchange, createLogger('restriction-notices-test', 'silent'));
    try {
      await broker.publish(zoneChanged('CHE.NTC001', 'updated'));
      const sentinel = await submit(flightRequestBody(client, {}, 7.41));
      const sentinelUuid = sentinel.body.data.uuid as string;
      await createZone(zoneAround(7.41, { name: 'Sentinel', restriction: 'CONDITIONAL', authority: 'FOCA' }));
      await hooksUntil(sentinelUuid, 'restriction_notice', 1);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(hooks(uuid, 'restriction_notice')).to.have.length(2);
      expect((await read(uuid)).review.findings.filter((finding: Data) => finding['zone_id'] === 'CHE.NTC001')).to.have.length(2);
    } finally {
      await broker.close();
    }
  });

  it('POST /api/zones/import: a dataset of 300 ED-318 zones in one request is written whole and listed', async () => {
    const features = Array.from({ length: 300 }, (_, index) =>
      ed318Zone(`BLK${String(index).padStart(4, '0')}`, 8 + (index % 20) * 0.05, { type: 'CONDITIONAL' }, 46 + Math.floor(index / 20) * 0.05),
    );
    const started = Date.now();
    const imported = await gateway.send('POST', '/api/zones/import', { key: system.adminKey, body: ed318('Bulk authority', new Date(), features) });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 500)).to.equal(200);
    expect(imported.body.data).to.include({ created: 300, updated: 0, total: 300 });
    expect(Date.now() - started).to.be.below(30_000);
    const listed = await gateway.send('GET', '/api/v1/zones?bbox=7.9,45.9,9.1,46.8&per_page=100', { key: client.key });
    expect(listed.status).to.equal(200);
    expect(listed.body.meta?.total ?? listed.body.total).to.equal(300);
  });
});
