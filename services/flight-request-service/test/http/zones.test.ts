import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import mongoose, { mongo } from 'mongoose';
import type { Principal } from '@dfc/contracts';
import { createLogger } from '@dfc/kit/logging';
import { OutboxRelay } from '@dfc/kit/outbox';
import { InternalTokenSigner, bodyReservation, processBodyBudget, RAW_BYTES_PER_BODY_BYTE } from '@dfc/kit/http';
import { halfSentBody, waitFor, unrecorded, type HalfSentBody } from '@dfc/kit/testing';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { square } from '../support/fixtures.js';
import { zoneBody } from '../support/zones.js';
import { ZONE_IMPORT_BODY_LIMIT_BYTES } from '../../src/app.js';
import { ZoneStore } from '../../src/store/zone-store.js';
import { zoneModel } from '../../src/store/zone-model.js';
import { importZones } from '../../src/use-cases/zones/import-zones.js';

const MIB = 1024 * 1024;

/** The ids this store reads zones of from now on (the real store, observed). */
function readsOf(store: ZoneStore): string[] {
  const read: string[] = [];
  const liveAmong = store.liveAmong.bind(store);
  store.liveAmong = (ids) => {
    read.push(...ids);
    return liveAmong(ids);
  };
  return read;
}

/** A feature of the own import format, a small square zone. */
function importedFeature(id: string, overrides: Record<string, unknown> = {}, lon = 5.5) {
  const { geometry, ...properties } = zoneBody(overrides, lon, 51.5, 0.05);
  return { type: 'Feature', id, properties, geometry };
}

describe('zones API', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => t.close());

  const call = (method: string, path: string, body?: unknown, as = admin) => t.call(method, path, { as, ...(body === undefined ? {} : { body }) });

  describe('who may manage zones', () => {
    for (const [role, principal] of [
      ['operator', operatorPrincipal('00000000-0000-4000-8000-000000000001')],
      ['reviewer', reviewerPrincipal('LVNL')],
    ] as const) {
      it(`when a ${role} writes any zone route or asks for retired zones, then 403; reading published zones is allowed`, async () => {
        for (const [method, path, body] of [
          ['POST', '/api/zones', zoneBody()],
          ['PUT', '/api/zones/x', zoneBody()],
          ['DELETE', '/api/zones/x', undefined],
          ['POST', '/api/zones/import', { type: 'FeatureCollection', features: [] }],
          ['GET', '/api/zones?status=retired', undefined],
        ] as const) {
          expect((await call(method, path, body, principal)).status, `${method} ${path}`).to.equal(403);
        }
        expect((await call('GET', '/api/zones', undefined, principal)).status).to.equal(200);
        expect((await call('GET', '/api/zones/x', undefined, principal)).status).to.equal(404);
      });
    }
  });

  /** An import that declares `declaredBytes` of body and sends only its first bytes. */
  async function openImport(as: Principal, declaredBytes: number): Promise<HalfSentBody> {
    const token = await new InternalTokenSigner(t.shared.keys.privateKeyPem).sign(as);
    return halfSentBody(t.url, { path: '/api/zones/import', headers: { 'x-internal-token': token }, declaredBytes, firstBytes: '{"type":' });
  }

  describe('POST /api/zones/import by an operator declaring 3 MiB', () => {
    it('when only the headers have arrived, then 403 at once: the body is never read', async () => {
      const opened = await openImport(operatorPrincipal('00000000-0000-4000-8000-000000000001'), 3 * MIB);
      try {
        expect((await opened.answer()).status).to.equal(403);
      } finally {
        opened.socket.destroy();
      }
    });
  });

  describe('POST /api/zones/import: the body limit and the process’s budget of bodies in flight', () => {
    it('when an admin declares more than 16 MiB, then 413 in the error shape at once, before a byte of the body is read', async () => {
      const opened = await openImport(admin, ZONE_IMPORT_BODY_LIMIT_BYTES + 1);
      try {
        const answer = await opened.answer();
        expect(answer.status).to.equal(413);
        expect(answer.body).to.deep.equal({ message: 'Request body is too large.' });
      } finally {
        opened.socket.destroy();
      }
    });

    it('when an admin streams more than 16 MiB, then 413 once the body passes the limit, before it is parsed', async () => {
      const { hostname, port } = new URL(t.url);
      const streamed = httpRequest({
        hostname,
        port,
        method: 'POST',
        path: '/api/zones/import',
        headers: { 'content-type': 'application/json', 'x-internal-token': await new InternalTokenSigner(t.shared.keys.privateKeyPem).sign(admin) },
      });
      streamed.on('error', () => undefined);
      const answered = new Promise<{ status: number; body: string }>((resolve) =>
        streamed.on('response', (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        }),
      );
      // Whitespace is JSON a parser would have to read through: the limit stops the read first.
      const chunk = Buffer.alloc(MIB, 0x20);
      for (let sent = 0; sent <= ZONE_IMPORT_BODY_LIMIT_BYTES; sent += MIB) streamed.write(chunk);
      const answer = await answered;
      streamed.destroy();
      expect(answer.status).to.equal(413);
      expect(JSON.parse(answer.body)).to.deep.equal({ message: 'Request body is too large.' });
    });

    it('when an import does not fit beside a body in flight, then 503 with Retry-After (an operator’s still 403); once that body is done it fits', async () => {
      const budget = processBodyBudget();
      const body = JSON.stringify({ type: 'FeatureCollection', features: [importedFeature('budget-a')] });
      // The most the import holds at once: its bytes as read, or then its text and what parsing it builds.
      const needed = bodyReservation(body);
      const inFlight = await openImport(admin, 4 * MIB);
      let rest: (() => void) | undefined;
      try {
        await waitFor(() => budget.inUseBytes >= RAW_BYTES_PER_BODY_BYTE * 4 * MIB, 2_000);
        // The rest of the process's budget is taken, as other bodies being read would take it: the import's room
        // is what the body in flight holds and a byte less than it needs.
        rest = budget.tryReserve(budget.capacityBytes - budget.inUseBytes - needed + 1);
        expect(rest).to.be.a('function');

        const refused = await call('POST', '/api/zones/import', body);
        expect(refused.status).to.equal(503);
        expect(refused.headers.get('retry-after')).to.equal('1');
        expect(refused.body).to.deep.equal({ message: 'Too many request bodies are being read; try again shortly.' });
        const operator = await openImport(operatorPrincipal('00000000-0000-4000-8000-000000000001'), 3 * MIB);
        try {
          expect((await operator.answer()).status).to.equal(403);
        } finally {
          operator.socket.destroy();
        }

        inFlight.socket.destroy();
        await waitFor(async () => (await call('POST', '/api/zones/import', body)).status === 200, 5_000);
      } finally {
        inFlight.socket.destroy();
        rest?.();
      }
      expect((await call('GET', '/api/zones/budget-a')).status).to.equal(200);
      expect((await fetch(`${t.url}/healthz`)).status).to.equal(200);
    });
  });

  describe('CRUD', () => {
    it('when an admin creates a zone, then 201 with the record and a Location; GET returns it', async () => {
      const created = await call('POST', '/api/zones', zoneBody({ name: 'Schiphol CTR', type: 'CTR', ctr_exemption_ceiling_m: 120 }));
      expect(created.status).to.equal(201);
      const record = created.body.data;
      expect(record).to.include({
        name: 'Schiphol CTR',
        type: 'CTR',
        restriction: 'REQ_AUTHORISATION',
        authority: 'LVNL',
        ctr_exemption_ceiling_m: 120,
        schedule: null,
      });
      expect(record.created_at).to.match(/\+00:00$/);
      expect(created.headers.get('location')).to.match(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/zones/${record.id}$`));
      const fetched = await call('GET', `/api/zones/${record.id}`);
      expect(fetched.status).to.equal(200);
      expect(fetched.body.data).to.deep.equal(record);
    });

    it('when a zone is replaced, then every field is the new one; when deleted, then 204, retired for admins and 404 for others', async () => {
      const { id } = (await call('POST', '/api/zones', zoneBody())).body.data;
      const replaced = await call(
        'PUT',
        `/api/zones/${id}`,
        zoneBody({ name: 'Renamed', restriction: 'PROHIBITED', authority: 'MIL', type: 'MILITARY' }),
      );
      expect(replaced.status).to.equal(200);
      expect(replaced.body.data).to.include({ id, name: 'Renamed', restriction: 'PROHIBITED', authority: 'MIL' });
      const deleted = await call('DELETE', `/api/zones/${id}`);
      expect(deleted.status).to.equal(204);
      const retired = await call('GET', `/api/zones/${id}`);
      expect(retired.body.data).to.include({ id, status: 'retired' });
      expect((await call('GET', `/api/zones/${id}`, undefined, operatorPrincipal('00000000-0000-4000-8000-000000000001'))).status).to.equal(404);
      expect((await call('DELETE', `/api/zones/${id}`)).status).to.equal(404);
      expect((await call('PUT', `/api/zones/${id}`, zoneBody())).status).to.equal(404);
    });

    it('when the input breaks rules, then 422 names every failing field and nothing is stored', async () => {
      const before = await unrecorded(() => t.service.deps.zones.model.countDocuments());
      const response = await call(
        'POST',
        '/api/zones',
        zoneBody({
          lower_limit_m: 300,
          upper_limit_m: 100,
          restriction: 'MAYBE',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [1, 0],
                [0, 1],
              ],
            ],
          },
        }),
      );
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.include.keys('upper_limit_m', 'restriction');
      expect(Object.keys(response.body.errors).some((field) => field.startsWith('geometry'))).to.equal(true);
      expect(await unrecorded(() => t.service.deps.zones.model.countDocuments())).to.equal(before);
    });

    it('when zones are listed, then they are paginated and filter by type and restriction', async () => {
      await call('POST', '/api/zones', zoneBody({ type: 'NATURE', restriction: 'CONDITIONAL', authority: 'NATURE' }));
      const nature = await call('GET', '/api/zones?type=NATURE&per_page=5');
      expect(nature.status).to.equal(200);
      expect(nature.body.data.length).to.be.greaterThan(0);
      expect(nature.body.data.every((zone: { type: string }) => zone.type === 'NATURE')).to.equal(true);
      expect(nature.body.meta.per_page).to.equal(5);
      const conditional = await call('GET', '/api/zones?restriction=CONDITIONAL');
      expect(conditional.body.data.every((zone: { restriction: string }) => zone.restriction === 'CONDITIONAL')).to.equal(true);
      expect((await call('GET', '/api/zones?type=VOLCANO')).status).to.equal(422);
    });
  });

  describe('POST /api/zones/import', () => {
    it('when a FeatureCollection of valid zones is imported, then 200 with created/updated counts; again, then all updated', async () => {
      const body = {
        type: 'FeatureCollection',
        features: [importedFeature('imp-a'), importedFeature('imp-b', {}, 5.6), importedFeature('imp-c', {}, 5.7)],
      };
      const first = await call('POST', '/api/zones/import', body);
      expect(first.status).to.equal(200);
      expect(first.body.data).to.deep.equal({ format: 'own', dataset: null, created: 3, updated: 0, unchanged: 0, retired: 0, total: 3 });
      const again = await call('POST', '/api/zones/import', body);
      expect(again.body.data).to.deep.equal({ format: 'own', dataset: null, created: 0, updated: 3, unchanged: 0, retired: 0, total: 3 });
      expect((await call('GET', '/api/zones/imp-b')).body.data.name).to.equal('Test zone');
      expect(t.service.deps.zoneIndex.search([5.5, 51.5, 5.55, 51.55]).map((zone) => zone.id)).to.include('imp-a');
    });

    it('when an import carries megabytes of areas, then they go in several insert commands of under 1 MiB each, and every zone is stored', async () => {
      const ring = (lon: number): number[][] => {
        const points = Array.from({ length: 1_400 }, (_, k) => {
          const angle = (2 * Math.PI * k) / 1_400;
          return [lon + 0.04 * Math.cos(angle), 48.5 + 0.04 * Math.sin(angle)].map((value) => Number(value.toFixed(7)));
        });
        return [...points, points[0] as number[]];
      };
      const features = Array.from({ length: 150 }, (_, k) => ({
        ...importedFeature(`large-${k}`, {}, 10 + k * 0.1),
        geometry: { type: 'Polygon', coordinates: [ring(10 + k * 0.1)] },
      }));
      const insertBytes: number[] = [];
      const watched = await mongoose.createConnection(t.shared.mongoUrl, { dbName: t.shared.database, monitorCommands: true }).asPromise();
      watched.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
        if (event.commandName === 'insert' && event.command['insert'] === 'zones') insertBytes.push(mongo.BSON.calculateObjectSize(event.command));
      });
      try {
        const zones = new ZoneStore(zoneModel(watched), new OutboxRelay(t.broker, createLogger('zones-test', 'silent')));
        const result = await importZones({ ...t.service.deps, zones }, { type: 'FeatureCollection', features });
        expect(result.created).to.equal(150);
      } finally {
        await watched.close();
      }
      expect(insertBytes.reduce((sum, bytes) => sum + bytes, 0)).to.be.above(4 * MIB);
      expect(insertBytes.length).to.be.above(2);
      expect(Math.max(...insertBytes)).to.be.below(MIB);
      expect((await call('GET', '/api/zones/large-149')).body.data.geometry.coordinates[0]).to.have.length(1_401);
    });

    it('when some features are invalid, then 422 lists them by feature and nothing is imported', async () => {
      const body = {
        type: 'FeatureCollection',
        features: [importedFeature('bad-ok'), importedFeature('bad-1', { name: '' }), importedFeature('bad-2', { restriction: 'NOPE' })],
      };
      const response = await call('POST', '/api/zones/import', body);
      expect(response.status).to.equal(422);
      expect(response.body.errors).to.include.keys('features.1.properties.name', 'features.2.properties.restriction');
      expect((await call('GET', '/api/zones/bad-ok')).status).to.equal(404);
    });
  });

  describe('replicas', () => {
    it('when a zone changes at one replica, then the other replica’s index follows through the broadcast event', async () => {
      const second = await startTestService({ shared: t.shared, env: { ZONE_RELOAD_INTERVAL_MS: '3600000' } });
      try {
        const bbox: [number, number, number, number] = [7.0, 53.0, 7.05, 53.05];
        const { id } = (await call('POST', '/api/zones', { ...zoneBody(), geometry: { type: 'Polygon', coordinates: square(7.0, 53.0, 0.05) } })).body
          .data;
        await waitFor(() => second.service.deps.zoneIndex.search(bbox).some((zone) => zone.id === id), 10_000);
        await call('PUT', `/api/zones/${id}`, {
          ...zoneBody({ name: 'Moved away' }),
          geometry: { type: 'Polygon', coordinates: square(8.0, 53.0, 0.05) },
        });
        await waitFor(() => !second.service.deps.zoneIndex.search(bbox).some((zone) => zone.id === id), 10_000);
        expect(second.service.deps.zoneIndex.search([8.0, 53.0, 8.05, 53.05]).find((zone) => zone.id === id)?.name).to.equal('Moved away');
        await call('DELETE', `/api/zones/${id}`);
        await waitFor(() => !second.service.deps.zoneIndex.search([8.0, 53.0, 8.05, 53.05]).some((zone) => zone.id === id), 10_000);
      } finally {
        await second.close();
      }
    });

    it('when nothing changed, then a full reload keeps every zone it holds as it was; when one changed without an event, then it reads that one again', async () => {
      const second = await startTestService({ shared: t.shared, env: { ZONE_RELOAD_INTERVAL_MS: '3600000' } });
      try {
        const area: [number, number, number, number] = [11, 56, 11.5, 56.1];
        const ids: string[] = [];
        for (const lon of [11, 11.2, 11.4]) {
          const { geometry, ...fields } = zoneBody({ name: `Quiet ${lon}` }, lon, 56, 0.05);
          ids.push((await call('POST', '/api/zones', { ...fields, geometry })).body.data.id as string);
        }
        const held = () => new Map(second.service.deps.zoneIndex.search(area).map((zone) => [zone.id, zone]));
        await waitFor(() => ids.every((id) => held().has(id)), 10_000);
        const before = held();
        const read = readsOf(second.service.deps.zones);

        await second.service.deps.zoneSync.reloadAll();
        expect(read.filter((id) => ids.includes(id))).to.deep.equal([]);
        for (const id of ids) expect(held().get(id), id).to.deep.equal(before.get(id));

        const [quiet, ...others] = ids as [string, ...string[]];
        await t.service.deps.zones.change(quiet, () => ({ set: { name: 'Renamed without an event', updated_at: new Date() }, events: [] }));
        expect(held().get(quiet)?.name).to.equal('Quiet 11');
        await second.service.deps.zoneSync.reloadAll();
        expect(read.filter((id) => ids.includes(id))).to.deep.equal([quiet]);
        expect(held().get(quiet)?.name).to.equal('Renamed without an event');
        for (const id of others) expect(held().get(id), id).to.deep.equal(before.get(id));
      } finally {
        await second.close();
      }
    });

    it('when an import elsewhere changes more zones than one read takes, then this replica’s index holds each of them, and a full reload drops the deleted', async () => {
      const second = await startTestService({ shared: t.shared, env: { ZONE_RELOAD_INTERVAL_MS: '3600000' } });
      try {
        const burst = Array.from({ length: 130 }, (_, i) => {
          const { geometry, ...properties } = zoneBody({ name: `Burst ${i}` }, 9 + (i % 13) * 0.1, 54 + Math.floor(i / 13) * 0.1, 0.05);
          return { type: 'Feature', id: `burst-${i}`, properties, geometry };
        });
        expect((await call('POST', '/api/zones/import', { type: 'FeatureCollection', features: burst })).status).to.equal(200);
        const heldBySecond = () => second.service.deps.zoneIndex.search([9, 54, 10.5, 55.5]).filter((zone) => zone.id.startsWith('burst-'));
        await waitFor(() => heldBySecond().length === burst.length, 20_000);
        expect(heldBySecond().find((zone) => zone.id === 'burst-129')?.name).to.equal('Burst 129');

        second.service.deps.zoneIndex.upsert({ ...heldBySecond()[0]!, id: 'burst-only-in-memory' });
        await t.service.deps.zones.change('burst-7', (current) => ({ set: { deleted_at: new Date(), updated_at: current.updated_at }, events: [] }));
        await second.service.deps.zoneSync.reloadAll();
        const ids = heldBySecond().map((zone) => zone.id);
        expect(ids).to.have.length(burst.length - 1);
        expect(ids).to.not.include.members(['burst-7', 'burst-only-in-memory']);
      } finally {
        await second.close();
      }
    });
  });
});
