import { expect } from 'chai';
import mongoose, { type Connection, type mongo } from 'mongoose';
import { Gauge } from 'prom-client';
import { createLogger } from '@dfc/kit/logging';
import { OutboxRelay } from '@dfc/kit/outbox';
import { checkQuery, queriesOfCommand, waitFor } from '@dfc/kit/testing';
import { ZoneIndex } from '../../src/domain/zones/zone-index.js';
import { ZoneEpochStore } from '../../src/store/zone-epoch-store.js';
import { zoneModel } from '../../src/store/zone-model.js';
import { ZoneStore } from '../../src/store/zone-store.js';
import { ZoneIndexSync } from '../../src/use-cases/zone-index-sync.js';
import { featureCollection, square, submission } from '../support/fixtures.js';
import { admin, operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { zoneBody } from '../support/zones.js';

/**
 * Two replicas of the service on one database and exchange: a zone change
 * made through one applies to the other's next screening, whatever the
 * broadcast event is doing, and a submission screened against the map as it
 * was before a change is screened again once stored.
 */
describe('zone freshness across replicas', function () {
  this.timeout(120_000);
  let one: TestService;
  let two: TestService;
  let operatorUuid: string;

  before(async () => {
    one = await startTestService({ env: { ZONE_RELOAD_INTERVAL_MS: '3600000', EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
    two = await startTestService({ shared: one.shared, env: { ZONE_RELOAD_INTERVAL_MS: '3600000', EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
    operatorUuid = await one.seedOperator();
  });
  after(async () => {
    await two?.close();
    await one?.close();
  });

  const prohibitedOver = (lon: number, lat: number, name: string) =>
    zoneBody({ name, type: 'TEMPORARY', restriction: 'PROHIBITED', authority: 'POLICE' }, lon - 0.05, lat - 0.05, 0.2);
  const submitAt = (replica: TestService, lon: number, lat: number) =>
    replica.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(operatorUuid),
      body: submission(operatorUuid, { flight_area: featureCollection(square(lon, lat)) }),
    });

  it('POST /api/zones at one replica, then POST /api/flight-requests at the other at once: the new zone applies, every time', async () => {
    for (let round = 0; round < 5; round++) {
      const [lon, lat] = [20 + round, 40];
      const zone = await one.call('POST', '/api/zones', { as: admin, body: prohibitedOver(lon, lat, `Closure ${round}`) });
      expect(zone.status).to.equal(201);
      const answer = await submitAt(two, lon, lat);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      expect(answer.body.data.status, `round ${round}`).to.equal('Rejected');
      expect(answer.body.data.review.findings.map((finding: { zone_id?: string }) => finding.zone_id)).to.include(zone.body.data.id);
    }
  });

  it('DELETE /api/zones/{id} at one replica, then a submission at the other at once: the zone no longer applies', async () => {
    const [lon, lat] = [30, 40];
    const zone = await one.call('POST', '/api/zones', { as: admin, body: prohibitedOver(lon, lat, 'Lifted') });
    expect((await submitAt(two, lon, lat)).body.data.status).to.equal('Rejected');
    expect((await one.call('DELETE', `/api/zones/${zone.body.data.id}`, { as: admin })).status).to.equal(204);
    expect((await submitAt(two, lon, lat)).body.data.status).to.equal('Approved');
  });

  it('POST /api/flight-requests: when a zone is created while the submission is between its screening and its write, after the zone’s rescreening queried, then the stored request is rescreened against it before the answer', async () => {
    const [lon, lat] = [35, 40];
    const requests = two.service.deps.requests;
    const complete = requests.completeScreening.bind(requests);
    let zoneId = '';
    requests.completeScreening = async (...args) => {
      const zone = await one.call('POST', '/api/zones', { as: admin, body: prohibitedOver(lon, lat, 'Sudden closure') });
      zoneId = zone.body.data.id as string;
      // The zone's rescreening runs now, from its published event, and finds nothing: this request is not stored yet.
      const outbox = async () => (await one.service.deps.zones.model.findById(zoneId, { outbox: 1 }).lean<{ outbox?: unknown[] }>())?.outbox ?? [];
      await waitFor(async () => ((await outbox()).length === 0 ? true : undefined), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return complete(...args);
    };
    try {
      const answer = await submitAt(two, lon, lat);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      expect(answer.body.data.status).to.equal('Rescinded');
      const stored = await one.call('GET', `/api/flight-requests/${answer.body.data.uuid}`, { as: admin });
      expect(stored.body.data.status).to.equal('Rescinded');
      expect(stored.body.data.rescission).to.include({ zone_id: zoneId });
    } finally {
      requests.completeScreening = complete;
    }
  });

  describe('the zone reload', () => {
    let watched: Connection;
    const replies: Array<{ command: string; reply: unknown }> = [];
    const filters: Array<Record<string, unknown>> = [];
    let sync: ZoneIndexSync;
    let index: ZoneIndex;

    before(async () => {
      // A replica's reload on a connection of its own, every command and reply watched.
      watched = await mongoose.createConnection(one.shared.mongoUrl, { dbName: one.shared.database, monitorCommands: true }).asPromise();
      watched.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
        if (event.commandName === 'find') filters.push(event.command);
      });
      watched
        .getClient()
        .on('commandSucceeded', (event: mongo.CommandSucceededEvent) => replies.push({ command: event.commandName, reply: event.reply }));
      const log = createLogger('zone-reload-test', 'silent');
      index = new ZoneIndex();
      sync = new ZoneIndexSync(
        new ZoneStore(zoneModel(watched), new OutboxRelay(one.broker, log)),
        new ZoneEpochStore(watched),
        index,
        new Gauge({ name: 'zones_in_test', help: 'test', registers: [] }),
        log,
      );
      await one.call('POST', '/api/zones', { as: admin, body: prohibitedOver(40, 40, 'Reloaded') });
      await sync.reloadAll();
    });
    after(async () => {
      await sync.stop();
      await watched.close();
    });
    beforeEach(() => {
      replies.length = 0;
      filters.length = 0;
    });
    const geometryRead = () => replies.filter(({ reply }) => JSON.stringify(reply).includes('geometry_json'));

    it('when nothing changed, then it reads ids and revisions through an index, and no geometry', async () => {
      const size = index.size;
      await sync.reloadAll();
      expect(index.size).to.equal(size);
      expect(geometryRead()).to.deep.equal([]);
      const [revisions, ...others] = filters.flatMap((command) => queriesOfCommand('find', command));
      expect(others).to.deep.equal([]);
      expect(revisions?.collection).to.equal('zones');
      const declared = zoneModel(watched)
        .schema.indexes()
        .map(([key, options]) => ({ key, unique: options.unique === true }));
      expect(checkQuery(revisions!, declared)).to.deep.include({ served: true });
      const plan = (await zoneModel(watched).find({ deleted_at: null }, { _id: 1, version: 1, updated_at: 1 }).explain()) as unknown;
      expect(JSON.stringify(plan)).to.not.include('geometry_json');
    });

    it('when the epoch is where the index caught up, then a screening’s check is one read of the epoch', async () => {
      // Caught up after the rescreenings of the zones created above have replaced the epoch.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await sync.current();
      replies.length = 0;
      filters.length = 0;
      await sync.current();
      expect(filters.map((command) => command['find'])).to.deep.equal(['zone_epochs']);
      expect(geometryRead()).to.deep.equal([]);
    });

    it('when one zone changed, then only that zone’s geometry is read', async () => {
      const changed = await one.call('POST', '/api/zones', { as: admin, body: prohibitedOver(41, 40, 'New one') });
      replies.length = 0;
      await sync.current();
      const read = geometryRead().map(({ reply }) => JSON.stringify(reply));
      expect(read).to.have.length(1);
      expect(read[0]).to.include(changed.body.data.id);
      expect(index.search([41, 40, 41.01, 40.01]).map((zone) => zone.id)).to.include(changed.body.data.id);
    });
  });
});
