import { expect } from 'chai';
import { waitFor, type CapturedEvents, unrecorded } from '@dfc/kit/testing';
import { RoutingKeys, type EventEnvelope, type FlightRequestStatusChanged, type Principal } from '@dfc/contracts';
import type { StoredFlightRequest } from '../../src/store/flight-request-model.js';
import { rescreenForZone } from '../../src/use-cases/rescreen-for-zone.js';
import { admin, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, isoZ, square, submission } from '../support/fixtures.js';
import { storedRequest } from '../support/stored-request.js';
import { zoneBody } from '../support/zones.js';

const HOUR = 3_600_000;
const anonymous: Principal = { sub: 'anonymous', role: 'anonymous' };

/** status_changed events of one request with one status. */
function statusEvents(events: CapturedEvents, uuid: string, status: string): Array<EventEnvelope<FlightRequestStatusChanged>> {
  return (events.events as Array<EventEnvelope<FlightRequestStatusChanged>>).filter(
    (event) => event.type === RoutingKeys.flightRequestStatusChanged && event.data.flight_request_uuid === uuid && event.data.status === status,
  );
}

/**
 * Dynamic restrictions: a zone created or changed after requests were decided
 * screens the live ones again, from the zone's event, once per zone version.
 * Each test flies at a longitude of its own, so zones never meet other tests' flights.
 */
describe('rescreening when a zone is created or changed (zone.changed → rescreenForZone)', function () {
  this.timeout(240_000);
  let t: TestService;
  let operatorUuid: string;
  let events: CapturedEvents;

  before(async () => {
    t = await startTestService();
    operatorUuid = await t.seedOperator();
    events = await t.captureEvents();
  });
  after(async () => {
    await events?.close();
    await t?.close();
  });

  const as = () => operatorPrincipal(operatorUuid);
  const submitAt = async (lon: number, overrides: Record<string, unknown> = {}) => {
    const response = await t.call('POST', '/api/flight-requests', {
      as: as(),
      body: submission(operatorUuid, { flight_area: featureCollection(square(lon + 0.05, 47.05)), ...overrides }),
    });
    expect(response.status).to.equal(201);
    return response.body.data;
  };
  const zoneAt = async (lon: number, overrides: Record<string, unknown>) => {
    const response = await t.call('POST', '/api/zones', { as: admin, body: zoneBody(overrides, lon, 47, 0.2) });
    expect(response.status).to.equal(201);
    return response.body.data.id as string;
  };
  const read = async (uuid: string) => (await t.call('GET', `/api/flight-requests/${uuid}`, { as: as() })).body.data;
  const until = (uuid: string, status: string) => waitFor(async () => ((await read(uuid)).status === status ? read(uuid) : undefined), 20_000);

  it('when a prohibited zone is created over an approved flight, then it is Rescinded with the zone and reason, its status_changed follows, and its token is revoked', async () => {
    const approved = await submitAt(40);
    expect(approved.status).to.equal('Approved');
    const { jti } = (await t.call('GET', `/api/flight-requests/${approved.uuid}/authorisation`, { as: as() })).body.data;

    const zoneId = await zoneAt(40, { restriction: 'PROHIBITED', type: 'TEMPORARY', authority: 'POLICE', name: 'Emergency' });
    const rescinded = await until(approved.uuid, 'Rescinded');
    expect(rescinded.rescission).to.include({ zone_id: zoneId, zone_name: 'Emergency' });
    expect(rescinded.status_history.at(-1)).to.include({ status: 'Rescinded', actor: 'screening' });
    expect(rescinded.status_history.at(-1).reason).to.include(zoneId);
    expect(rescinded.review.findings.map((finding: { code: string }) => finding.code)).to.deep.equal(['ZONE_PROHIBITED']);

    const [event] = await waitFor(() => {
      const found = statusEvents(events, approved.uuid, 'Rescinded');
      return found.length > 0 ? found : undefined;
    });
    expect(event!.data).to.include({ previous_status: 'Approved', actor: 'screening', sequence: 3 });
    const token = await t.call('GET', `/api/authorisations/${jti}`, { as: anonymous });
    expect(token.body.data).to.deep.equal({ jti, status: 'revoked' });
    expect((await t.call('GET', `/api/flight-requests/${approved.uuid}/authorisation`, { as: as() })).status).to.equal(404);
  });

  it('when a zone needing authorisation is created over a pending flight, then it gains that item and the authority sees it in its queue', async () => {
    const pending = await submitAt(41, { max_altitude: 200 });
    expect(pending.review.items.map((item: { authority: string }) => item.authority)).to.deep.equal(['NATIONAL']);
    const zoneId = await zoneAt(41, { authority: 'HARBOUR', name: 'Harbour works' });
    const updated = await waitFor(async () => {
      const record = await read(pending.uuid);
      return record.review.items.length === 2 ? record : undefined;
    }, 20_000);
    expect(updated.status).to.equal('Pending');
    expect(updated.review.items[1]).to.include({ kind: 'zone_authorisation', authority: 'HARBOUR', zone_id: zoneId, status: 'pending' });
    const queue = await waitFor(async () => {
      const answer = await t.call('GET', '/api/reviews', { as: reviewerPrincipal('HARBOUR') });
      return answer.body.data.length > 0 ? answer.body.data : undefined;
    }, 20_000);
    expect(queue.map((entry: { flight_request: { uuid: string } }) => entry.flight_request.uuid)).to.include(pending.uuid);
  });

  it('when a prohibited zone is created over a pending flight, then it is Rejected and its pending items are withdrawn', async () => {
    const pending = await submitAt(42, { max_altitude: 200 });
    await zoneAt(42, { restriction: 'PROHIBITED', type: 'MILITARY', authority: 'MIL', name: 'Range' });
    const rejected = await until(pending.uuid, 'Rejected');
    expect(rejected.review.items.map((item: { status: string }) => item.status)).to.deep.equal(['withdrawn']);
    expect(rejected.rescission).to.equal(null);
  });

  it('when the zone misses the flight in height or time, or is changed to something that allows it, then nothing changes', async () => {
    const low = await submitAt(43, { max_altitude: 50 });
    const zoneId = await zoneAt(43, { restriction: 'PROHIBITED', type: 'MILITARY', authority: 'MIL', lower_limit_m: 100 });
    const later = { start: new Date(Date.now() + 30 * HOUR).toISOString(), end: new Date(Date.now() + 31 * HOUR).toISOString() };
    await t.call('PUT', `/api/zones/${zoneId}`, {
      as: admin,
      body: zoneBody({ restriction: 'PROHIBITED', type: 'MILITARY', authority: 'MIL', schedule: later }, 43, 47, 0.2),
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const record = await read(low.uuid);
    expect(record.status).to.equal('Approved');
    expect(record.status_history).to.have.length(2);
  });

  it('when the same zone version is screened again (a redelivered event), then nothing changes twice', async () => {
    const pending = await submitAt(44, { max_altitude: 200 });
    const zoneId = await zoneAt(44, { authority: 'PORT', name: 'Port' });
    await waitFor(async () => ((await read(pending.uuid)).review.items.length === 2 ? true : undefined), 20_000);
    const before = await t.service.deps.requests.find(pending.uuid);
    const again = await rescreenForZone(t.service.deps, zoneId, 'created');
    expect(again).to.deep.include({ candidates: 1, rescinded: 0, rejected: 0, reviewed: 0 });
    const after = await t.service.deps.requests.find(pending.uuid);
    expect(after?.version).to.equal(before?.version);
    expect(after?.zone_screenings).to.deep.equal([{ zone_id: zoneId, version: 0 }]);
  });

  it('when a zone meets a request of volumes only where none of them flies, then nothing changes; one that meets a volume names it', async () => {
    const start = new Date(Math.ceil((Date.now() + 2 * HOUR) / 1000) * 1000);
    const window = { start_time: isoZ(start), end_time: isoZ(new Date(start.getTime() + HOUR)) };
    const agl = (value: number) => ({ value, reference: 'AGL', units: 'm' });
    const volume = (lon: number, lower: number, upper: number) => ({
      geometry: { type: 'Polygon', coordinates: square(lon, 47.05) },
      altitude_lower: agl(lower),
      altitude_upper: agl(upper),
      ...window,
    });
    const { start_time: _start, end_time: _end, max_altitude: _ceiling, flight_area: _area, ...fields } = submission(operatorUuid);
    // Volume 0 low over the west square, volume 1 higher over the east one: the envelope is both areas from the ground to 90 m.
    const response = await t.call('POST', '/api/flight-requests', {
      as: as(),
      body: { ...fields, volumes: [volume(60.0, 0, 30), volume(60.05, 60, 90)] },
    });
    expect(response.body.data.status).to.equal('Approved');
    const uuid = response.body.data.uuid as string;
    const prohibitedFrom50m = { restriction: 'PROHIBITED', type: 'TEMPORARY', authority: 'POLICE', lower_limit_m: 50 };

    const overLowVolume = await t.call('POST', '/api/zones', {
      as: admin,
      body: zoneBody({ ...prohibitedFrom50m, name: 'Above the low volume' }, 59.995, 47.045, 0.02),
    });
    expect(overLowVolume.status).to.equal(201);
    const summary = await rescreenForZone(t.service.deps, overLowVolume.body.data.id as string, 'created');
    expect(summary).to.deep.include({ candidates: 1, rescinded: 0, rejected: 0, reviewed: 0, suspended: 0, noticed: 0 });
    const unchanged = await read(uuid);
    expect(unchanged.status).to.equal('Approved');
    expect(unchanged.status_history).to.have.length(2);
    expect(unchanged.review.findings).to.deep.equal([]);

    const overHighVolume = await t.call('POST', '/api/zones', {
      as: admin,
      body: zoneBody({ ...prohibitedFrom50m, name: 'Crane' }, 60.045, 47.045, 0.02),
    });
    const rescinded = await until(uuid, 'Rescinded');
    expect(rescinded.rescission).to.include({ zone_id: overHighVolume.body.data.id });
    expect(rescinded.review.findings.map((finding: { code: string; volume?: number }) => [finding.code, finding.volume])).to.deep.equal([
      ['ZONE_PROHIBITED', 1],
    ]);
    expect(rescinded.review.findings[0].message).to.match(/^Volume 1: /);
  });

  it('when a second replica shares the queue, then each request is rescinded once, with one status_changed', async () => {
    const replica = await startTestService({ shared: t.shared });
    try {
      const flights = await Promise.all([0, 0.02, 0.04, 0.06].map((offset) => submitAt(45 + offset)));
      await zoneAt(45, { restriction: 'PROHIBITED', type: 'TEMPORARY', authority: 'POLICE', name: 'Incident' });
      for (const flight of flights) await until(flight.uuid, 'Rescinded');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const flight of flights) {
        expect(statusEvents(events, flight.uuid, 'Rescinded'), flight.uuid).to.have.length(1);
        expect((await read(flight.uuid)).status_history.filter((entry: { status: string }) => entry.status === 'Rescinded')).to.have.length(1);
      }
    } finally {
      await replica.close();
    }
  });

  it('when 1,000 approved flights lie under a new prohibited zone, then all 1,000 are rescinded, each once', async () => {
    const start = new Date(Date.now() + HOUR);
    const approvedAt = new Date();
    const stored: StoredFlightRequest[] = Array.from({ length: 1000 }, (_, index) => {
      const request = storedRequest({ operatorUuid, status: 'Approved', start, end: new Date(start.getTime() + HOUR) });
      const area = featureCollection(square(50 + (index % 40) * 0.004, 47.05 + Math.floor(index / 40) * 0.004, 0.002));
      const [west, south] = [50 + (index % 40) * 0.004, 47.05 + Math.floor(index / 40) * 0.004];
      return {
        ...request,
        max_altitude: 100,
        area: { ...request.area, bbox: [west, south, west + 0.002, south + 0.002] },
        bbox_west: west,
        bbox_south: south,
        bbox_east: west + 0.002,
        bbox_north: south + 0.002,
        flight_area_json: JSON.stringify(area),
        polygons_json: JSON.stringify((area as { features: unknown[] }).features),
        status_history: [...request.status_history, { status: 'Approved', at: approvedAt, actor: 'screening', reason: null }],
        version: 0,
      };
    });
    await t.service.deps.requests.model.insertMany(stored);
    await zoneAt(50, { restriction: 'PROHIBITED', type: 'TEMPORARY', authority: 'POLICE', name: 'Wildfire' });
    const uuids = new Set(stored.map((request) => request._id));
    const rescinded = (event: EventEnvelope) =>
      event.type === RoutingKeys.flightRequestStatusChanged &&
      uuids.has((event.data as FlightRequestStatusChanged).flight_request_uuid) &&
      (event.data as FlightRequestStatusChanged).status === 'Rescinded';
    const rescissions = await waitFor(
      () => {
        const found = events.events.filter(rescinded);
        return found.length >= 1000 ? found : undefined;
      },
      170_000,
      500,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(events.events.filter(rescinded)).to.have.length(1000);
    expect(await unrecorded(() => t.service.deps.requests.model.countDocuments({ status: 'Rescinded', _id: { $in: [...uuids] } }))).to.equal(1000);
    expect(rescissions).to.have.length(1000);
    expect(new Set(rescissions.map((event) => (event.data as FlightRequestStatusChanged).flight_request_uuid)).size).to.equal(1000);
  });
});
