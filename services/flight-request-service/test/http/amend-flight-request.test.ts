import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RoutingKeys } from '@dfc/contracts';
import { unrecorded, type CapturedEvents } from '@dfc/kit/testing';
import { admin, anonymous, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, isoZ, square, submission } from '../support/fixtures.js';
import { insertStored, storedRequest } from '../support/stored-request.js';

const HOUR = 3_600_000;

/** Amendments: a new revision, screened again; approvals that still hold are kept, an approval again is a new authorisation. */
describe('PATCH /api/flight-requests/{uuid}', function () {
  this.timeout(60_000);
  let t: TestService;
  let operatorUuid: string;
  let otherUuid: string;
  let events: CapturedEvents;
  let lon = 6.5;

  before(async () => {
    t = await startTestService({ env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
    operatorUuid = await t.seedOperator();
    otherUuid = await t.seedOperator();
    events = await t.captureEvents();
  });
  after(async () => {
    await events.close();
    await t.close();
  });

  const as = (owner = operatorUuid) => operatorPrincipal(owner);
  function nextSquare(): number {
    lon += 0.05;
    return lon;
  }
  async function submit(overrides: Record<string, unknown> = {}, owner = operatorUuid) {
    const response = await t.call('POST', '/api/flight-requests', {
      as: as(owner),
      body: submission(owner, { flight_area: featureCollection(square(nextSquare(), 52.2)), ...overrides }),
    });
    expect(response.status).to.equal(201);
    return response.body.data;
  }
  const amend = (uuid: string, body: unknown, principal = as()) => t.call('PATCH', `/api/flight-requests/${uuid}`, { as: principal, body });
  const jtiOf = async (uuid: string) => (await t.call('GET', `/api/flight-requests/${uuid}/authorisation`, { as: admin })).body.data?.jti as string;
  const statusOf = async (jti: string) => (await t.call('GET', `/api/authorisations/${jti}`, { as: anonymous })).body.data.status as string;
  const amendedEvent = (uuid: string, revision: number) =>
    events.next(
      (candidate) =>
        candidate.type === RoutingKeys.flightRequestAmended &&
        (candidate.data as { flight_request_uuid: string }).flight_request_uuid === uuid &&
        (candidate.data as { revision: number }).revision === revision,
    );
  /** A Pending request above 120 m (an altitude item for NATIONAL), approved by an admin's decision. */
  async function approvedAfterReview(overrides: Record<string, unknown> = {}) {
    const pending = await submit({ max_altitude: 200, ...overrides });
    expect(pending.status).to.equal('Pending');
    const decided = await t.call('POST', `/api/reviews/${pending.review.items[0].id}/decision`, {
      as: admin,
      body: { decision: 'approve', reason: 'Up to 200 m is fine here' },
    });
    expect(decided.status).to.equal(200);
    return (await t.call('GET', `/api/flight-requests/${pending.uuid}`, { as: admin })).body.data;
  }

  it('when the purpose of an Approved request changes, then it is approved again: revision 2, a new authorisation, the old one revoked, an amended event', async () => {
    const approved = await submit();
    expect(approved.status).to.equal('Approved');
    const oldJti = await jtiOf(approved.uuid);
    const response = await amend(approved.uuid, { purpose: 'Roof inspection, north wing only' });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const amended = response.body.data;
    expect(amended).to.include({ status: 'Approved', purpose: 'Roof inspection, north wing only', revision: 2 });
    expect(amended.status_history.map((entry: { status: string }) => entry.status)).to.deep.equal(['Pending', 'Approved', 'Approved']);
    expect(amended.status_history.at(-1)).to.include({ actor: 'screening' });
    const newJti = await jtiOf(approved.uuid);
    expect(newJti).to.equal(`${approved.uuid}.2`).and.not.equal(oldJti);
    expect(await statusOf(oldJti)).to.equal('revoked');
    expect(await statusOf(newJti)).to.equal('valid');
    const event = await amendedEvent(approved.uuid, 2);
    expect(event.data).to.deep.include({
      previous_status: 'Approved',
      status: 'Approved',
      changed: ['purpose'],
      revoked_authorisation: oldJti,
      sequence: 3,
    });
    const stored = await unrecorded(() => t.service.deps.requests.find(approved.uuid));
    expect(stored?.deconfliction).to.include({ state: 'held' });
    expect(stored?.deconfliction?.next ?? null).to.equal(null);
  });

  it('when the same amendment is sent again, then nothing changes: same revision, same history', async () => {
    const approved = await submit();
    const first = (await amend(approved.uuid, { max_altitude: 90 })).body.data;
    const again = await amend(approved.uuid, { max_altitude: 90 });
    expect(again.status).to.equal(200);
    expect(again.body.data.revision).to.equal(first.revision);
    expect(again.body.data.status_history).to.deep.equal(first.status_history);
  });

  it('when a reviewed approval still covers the amended flight (lower ceiling, shorter window), then the approval is kept and the request approved again', async () => {
    const approved = await approvedAfterReview();
    expect(approved.status).to.equal('Approved');
    const item = approved.review.items[0];
    const end = new Date(new Date(approved.end_time).getTime() - HOUR);
    const response = await amend(approved.uuid, { max_altitude: 150, end_time: isoZ(end) });
    expect(response.status).to.equal(200);
    const amended = response.body.data;
    expect(amended.status).to.equal('Approved');
    expect(amended.review.items).to.have.length(1);
    expect(amended.review.items[0]).to.include({ id: item.id, status: 'approved' });
    expect((await amendedEvent(approved.uuid, 2)).data).to.include({ approvals_kept: 1 });
  });

  it('when the amended window leaves what was approved, then the approval is asked for again: Pending, the old authorisation revoked, the airspace freed', async () => {
    const approved = await approvedAfterReview();
    const oldJti = await jtiOf(approved.uuid);
    const later = new Date(new Date(approved.end_time).getTime() + HOUR);
    const response = await amend(approved.uuid, { end_time: isoZ(later) });
    expect(response.status).to.equal(200);
    const amended = response.body.data;
    expect(amended.status).to.equal('Pending');
    expect(amended.status_history.at(-1)).to.include({ status: 'Pending', actor: 'operator' });
    expect(amended.review.items.map((item: { status: string }) => item.status)).to.deep.equal(['pending']);
    expect(amended.review.items[0].id).to.not.equal(approved.review.items[0].id);
    expect(await statusOf(oldJti)).to.equal('revoked');
    expect((await t.call('GET', `/api/flight-requests/${approved.uuid}/authorisation`, { as: admin })).status).to.equal(404);
    const stored = await unrecorded(() => t.service.deps.requests.find(approved.uuid));
    expect(stored?.deconfliction ?? null).to.equal(null);
    const queue = await t.call('GET', '/api/reviews', { as: reviewerPrincipal('NATIONAL') });
    expect(queue.body.data.some((entry: { id: string }) => entry.id === amended.review.items[0].id)).to.equal(true);
  });

  it('when the area moves into another operator’s approved flight, then it is not approved: Pending with a deconfliction item, and only one of the two holds the airspace', async () => {
    const theirs = await submit({}, otherUuid);
    expect(theirs.status).to.equal('Approved');
    const ours = await submit();
    expect(ours.status).to.equal('Approved');
    const oldJti = await jtiOf(ours.uuid);
    const [west, south] = theirs.area.bbox as [number, number];
    const response = await amend(ours.uuid, { flight_area: featureCollection(square(west, south)) });
    expect(response.status).to.equal(200);
    const amended = response.body.data;
    expect(amended.status).to.equal('Pending');
    expect(amended.review.findings.map((finding: { code: string }) => finding.code)).to.include('DECONFLICTION_OVERLAP');
    expect(amended.review.items.map((item: { kind: string }) => item.kind)).to.deep.equal(['deconfliction']);
    expect(await statusOf(oldJti)).to.equal('revoked');
    expect((await t.call('GET', `/api/flight-requests/${theirs.uuid}`, { as: admin })).body.data.status).to.equal('Approved');
  });

  it('when an Approved request is amended into volumes, then it is approved again with them; one into another operator’s band is not, one above that band is', async () => {
    const theirs = await submit({ max_altitude: 60 }, otherUuid);
    expect(theirs.status).to.equal('Approved');
    const [west, south] = theirs.area.bbox as [number, number];
    const window = { start_time: theirs.start_time as string, end_time: theirs.end_time as string };
    const volume = (band: [number, number]) => ({
      geometry: { type: 'Polygon', coordinates: square(west, south) },
      altitude_lower: { value: band[0], reference: 'AGL', units: 'm' },
      altitude_upper: { value: band[1], reference: 'AGL', units: 'm' },
      ...window,
    });

    const above = await submit();
    const lifted = await amend(above.uuid, { volumes: [volume([80, 110])] });
    expect(lifted.status, JSON.stringify(lifted.body)).to.equal(200);
    expect(lifted.body.data).to.include({ status: 'Approved', revision: 2, max_altitude: 110 });
    expect(lifted.body.data.volumes).to.have.length(1);
    expect(lifted.body.data.volumes[0]).to.deep.include({ altitude_lower: volume([80, 110]).altitude_lower });

    const into = await submit();
    const moved = await amend(into.uuid, { volumes: [volume([40, 90])] });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.status).to.equal('Pending');
    expect(moved.body.data.review.items.map((item: { kind: string }) => item.kind)).to.deep.equal(['deconfliction']);

    const purposeOnly = await amend(above.uuid, { purpose: 'Survey of the north field' });
    expect(purposeOnly.status, JSON.stringify(purposeOnly.body)).to.equal(200);
    expect(purposeOnly.body.data).to.include({ status: 'Approved', revision: 3, max_altitude: 110 });
    expect(purposeOnly.body.data.volumes[0]).to.deep.include({ altitude_upper: volume([80, 110]).altitude_upper });
  });

  it('when the area moves into free airspace while another operator submits it, then at most one of them is approved', async () => {
    for (let round = 0; round < 3; round++) {
      const ours = await submit();
      const target = nextSquare();
      const when = { start_time: ours.start_time, end_time: ours.end_time };
      const [amended, rival] = await Promise.all([
        amend(ours.uuid, { flight_area: featureCollection(square(target, 52.2)) }),
        t.call('POST', '/api/flight-requests', {
          as: as(otherUuid),
          body: submission(otherUuid, { flight_area: featureCollection(square(target, 52.2)), ...when }),
        }),
      ]);
      const statuses = [amended.body.data?.status, rival.body.data?.status];
      expect(statuses.filter((status) => status === 'Approved').length, JSON.stringify(statuses)).to.be.at.most(1);
    }
  });

  it('when amendments race on one request, then each answers 200 or 409 and the revision counts exactly the ones that landed', async () => {
    const approved = await submit();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => amend(approved.uuid, { purpose: `Inspection, take ${i}` })));
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      JSON.stringify(statuses),
    ).to.equal(true);
    const landed = statuses.filter((status) => status === 200).length;
    expect(landed).to.be.at.least(1);
    const after = (await t.call('GET', `/api/flight-requests/${approved.uuid}`, { as: admin })).body.data;
    expect(after.revision).to.equal(1 + landed);
    expect(after.status).to.equal('Approved');
    expect(after.status_history).to.have.length(2 + landed);
  });

  it('when the body has unknown fields, no fields, or fails the submission’s rules, then 422 naming each path and the request is unchanged', async () => {
    const approved = await submit();
    const unknown = await amend(approved.uuid, { aircraft_type: 'helicopter', purpose: 'x' });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.errors).to.have.keys('aircraft_type');
    expect((await amend(approved.uuid, {})).status).to.equal(422);
    const bounds = await amend(approved.uuid, { max_altitude: 501, end_time: approved.start_time });
    expect(bounds.status).to.equal(422);
    expect(bounds.body.errors).to.have.keys('max_altitude', 'end_time');
    const area = await amend(approved.uuid, {
      flight_area: {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[4.9, 52]]] } }],
      },
    });
    expect(area.status).to.equal(422);
    expect(Object.keys(area.body.errors).every((path) => path.startsWith('flight_area.features.0'))).to.equal(true);
    const after = (await t.call('GET', `/api/flight-requests/${approved.uuid}`, { as: admin })).body.data;
    expect(after.revision).to.equal(1);
  });

  it('when the request is Activated, Cancelled, or its window has started, then 409; another operator 404, a reviewer 403', async () => {
    const approved = await submit();
    expect((await amend(approved.uuid, { purpose: 'x' }, as(randomUUID()))).status).to.equal(404);
    expect((await amend(approved.uuid, { purpose: 'x' }, reviewerPrincipal('NATIONAL'))).status).to.equal(403);
    await t.call('DELETE', `/api/flight-requests/${approved.uuid}`, { as: as(), body: { reason: 'Weather' } });
    const cancelled = await amend(approved.uuid, { purpose: 'x' });
    expect(cancelled.status).to.equal(409);
    expect(cancelled.body.message).to.equal('A Cancelled flight request cannot be amended.');
    for (const status of ['Activated', 'Approved'] as const) {
      const started = storedRequest({ operatorUuid, status, start: new Date(Date.now() - 60_000), end: new Date(Date.now() + HOUR) });
      await insertStored(t, started);
      const response = await amend(started._id, { purpose: 'x' });
      expect(response.status).to.equal(409);
      expect(response.body.message).to.equal(
        status === 'Activated'
          ? 'An Activated flight request cannot be amended.'
          : 'A flight request whose flight window has started cannot be amended.',
      );
    }
  });
});
