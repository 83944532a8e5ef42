import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RoutingKeys } from '@dfc/contracts';
import { unrecorded, type CapturedEvents } from '@dfc/kit/testing';
import { endClosedFlights } from '../../src/use-cases/end-closed-flights.js';
import { admin, anonymous, operatorPrincipal, reviewerPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { featureCollection, square, submission } from '../support/fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const GRACE_MINUTES = 15;

/**
 * Flights as they are flown: an Approved request is activated inside its
 * window, ended by its operator, or ended by the window-close sweep. The
 * service runs on a clock the tests move, so a window submitted ahead can be
 * entered and left.
 */
describe('POST /api/flight-requests/{uuid}/activate and /end', function () {
  this.timeout(60_000);
  let t: TestService;
  let clock = Date.now();
  let operatorUuid: string;
  let otherUuid: string;
  let events: CapturedEvents;
  let lon = 5.5;

  before(async () => {
    t = await startTestService({
      env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000', ACTIVATION_END_GRACE_MINUTES: String(GRACE_MINUTES) },
      now: () => new Date(clock),
    });
    operatorUuid = await t.seedOperator();
    otherUuid = await t.seedOperator();
    events = await t.captureEvents();
  });
  after(async () => {
    await events.close();
    await t.close();
  });
  beforeEach(() => {
    clock = Date.now();
  });

  /** An Approved flight of `owner` on a square of its own (each story flies elsewhere), its window starting in an hour. */
  async function approved(owner = operatorUuid, at = nextSquare()) {
    const response = await t.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(owner),
      body: submission(owner, { flight_area: featureCollection(square(at, 52.1)) }),
    });
    expect(response.status).to.equal(201);
    expect(response.body.data.status).to.equal('Approved');
    return response.body.data as { uuid: string; start_time: string; end_time: string };
  }
  function nextSquare(): number {
    lon += 0.05;
    return lon;
  }
  const into = (record: { start_time: string }, offsetMs = MINUTE) => {
    clock = new Date(record.start_time).getTime() + offsetMs;
  };
  const activate = (uuid: string, body: unknown = {}, as = operatorPrincipal(operatorUuid)) =>
    t.call('POST', `/api/flight-requests/${uuid}/activate`, { as, body });
  const end = (uuid: string, body: unknown = {}, as = operatorPrincipal(operatorUuid)) =>
    t.call('POST', `/api/flight-requests/${uuid}/end`, { as, body });
  const record = async (uuid: string) => (await t.call('GET', `/api/flight-requests/${uuid}`, { as: admin })).body.data;
  const authorisationStatus = async (uuid: string) => {
    const { jti } = (await t.call('GET', `/api/flight-requests/${uuid}/authorisation`, { as: admin })).body.data as { jti: string };
    return { jti, status: async () => (await t.call('GET', `/api/authorisations/${jti}`, { as: anonymous })).body.data.status as string };
  };
  const statusEvent = (uuid: string, status: string) =>
    events.next(
      (candidate) =>
        candidate.type === RoutingKeys.flightRequestStatusChanged &&
        (candidate.data as { flight_request_uuid: string }).flight_request_uuid === uuid &&
        (candidate.data as { status: string }).status === status,
    );

  it('activate: when an Approved flight is activated inside its window, then 200 Activated, a history entry, a status_changed event, and its authorisation stays valid', async () => {
    const flight = await approved();
    const authorisation = await authorisationStatus(flight.uuid);
    into(flight);
    const response = await activate(flight.uuid);
    expect(response.status).to.equal(200);
    const activated = response.body.data;
    expect(activated.status).to.equal('Activated');
    expect(activated.status_history.at(-1)).to.include({ status: 'Activated', actor: 'operator', reason: null });
    expect(activated.activation).to.deep.equal({
      activated_at: new Date(clock).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      ended_at: null,
      end_reason: null,
    });
    const event = await statusEvent(flight.uuid, 'Activated');
    expect(event.data).to.include({ previous_status: 'Approved', actor: 'operator', sequence: 3 });
    expect(await authorisation.status()).to.equal('valid');
    expect((await t.call('GET', `/api/flight-requests/${flight.uuid}/authorisation`, { as: admin })).body.data.jti).to.equal(authorisation.jti);
  });

  it('activate: when the window has not started or has ended, then 409 and the flight stays Approved', async () => {
    const flight = await approved();
    clock = new Date(flight.start_time).getTime() - MINUTE;
    const early = await activate(flight.uuid);
    expect(early.status).to.equal(409);
    expect(early.body.message).to.equal('A flight cannot be activated before its flight window starts.');
    clock = new Date(flight.end_time).getTime();
    const late = await activate(flight.uuid);
    expect(late.status).to.equal(409);
    expect(late.body.message).to.equal('A flight whose flight window has ended cannot be activated.');
    expect((await record(flight.uuid)).status).to.equal('Approved');
  });

  it('activate: when the request is Pending or Activated already, then 409 naming its state', async () => {
    const pending = (
      await t.call('POST', '/api/flight-requests', { as: operatorPrincipal(operatorUuid), body: submission(operatorUuid, { max_altitude: 200 }) })
    ).body.data;
    expect(pending.status).to.equal('Pending');
    into(pending);
    expect((await activate(pending.uuid)).body.message).to.equal('A Pending flight request cannot be activated.');
    const flight = await approved();
    into(flight);
    expect((await activate(flight.uuid)).status).to.equal(200);
    const again = await activate(flight.uuid);
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal('An Activated flight request cannot be activated.');
  });

  it('activate: when another operator, a reviewer or an admin asks, then 404, 403, 403; a body with fields is 422', async () => {
    const flight = await approved();
    into(flight);
    expect((await activate(flight.uuid, {}, operatorPrincipal(randomUUID()))).status).to.equal(404);
    expect((await activate(flight.uuid, {}, reviewerPrincipal('NATIONAL'))).status).to.equal(403);
    expect((await activate(flight.uuid, {}, admin)).status).to.equal(403);
    const invalid = await activate(flight.uuid, { at: 'now' });
    expect(invalid.status).to.equal(422);
    expect(invalid.body.errors).to.have.keys('at');
    expect((await activate('not-a-uuid')).status).to.equal(404);
    expect((await record(flight.uuid)).status).to.equal('Approved');
  });

  it('activate: when another operator submits the airspace of an Activated flight, then it is not approved: Pending with a deconfliction finding', async () => {
    const at = nextSquare();
    const flight = await approved(operatorUuid, at);
    into(flight);
    expect((await activate(flight.uuid)).status).to.equal(200);
    const rival = await t.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(otherUuid),
      body: submission(otherUuid, { flight_area: featureCollection(square(at, 52.1)), start_time: isoSeconds(clock), end_time: flight.end_time }),
    });
    expect(rival.status).to.equal(201);
    expect(rival.body.data.status).to.equal('Pending');
    expect(rival.body.data.review.findings.map((finding: { code: string }) => finding.code)).to.include('DECONFLICTION_OVERLAP');
  });

  it('end: when the operator ends an Activated flight, then 200 Ended with the reason, its airspace freed and its authorisation expired', async () => {
    const at = nextSquare();
    const flight = await approved(operatorUuid, at);
    const authorisation = await authorisationStatus(flight.uuid);
    into(flight);
    expect((await activate(flight.uuid)).status).to.equal(200);
    const response = await end(flight.uuid, { reason: 'Landed' });
    expect(response.status).to.equal(200);
    const ended = response.body.data;
    expect(ended.status).to.equal('Ended');
    expect(ended.activation.end_reason).to.equal('ended_by_operator');
    expect(ended.activation.ended_at).to.be.a('string');
    expect(ended.status_history.at(-1)).to.include({ status: 'Ended', actor: 'operator', reason: 'Landed' });
    expect((await statusEvent(flight.uuid, 'Ended')).data).to.include({ previous_status: 'Activated', sequence: 4 });
    expect(await authorisation.status()).to.equal('expired');
    expect((await t.call('GET', `/api/flight-requests/${flight.uuid}/authorisation`, { as: admin })).status).to.equal(404);
    const stored = await unrecorded(() => t.service.deps.requests.find(flight.uuid));
    expect(stored?.deconfliction ?? null).to.equal(null);
    const next = await t.call('POST', '/api/flight-requests', {
      as: operatorPrincipal(otherUuid),
      body: submission(otherUuid, { flight_area: featureCollection(square(at, 52.1)), start_time: isoSeconds(clock), end_time: flight.end_time }),
    });
    expect(next.body.data.status).to.equal('Approved');
  });

  it('end: when the flight is Approved and never activated, then 409 saying to cancel it; when Ended, 409; without a body, 200', async () => {
    const flight = await approved();
    into(flight);
    const refused = await end(flight.uuid);
    expect(refused.status).to.equal(409);
    expect(refused.body.message).to.equal('An Approved flight that was not activated cannot be ended; cancel it instead.');
    await activate(flight.uuid);
    expect((await t.call('POST', `/api/flight-requests/${flight.uuid}/end`, { as: operatorPrincipal(operatorUuid) })).status).to.equal(200);
    const again = await end(flight.uuid);
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal('An Ended flight request cannot be ended.');
    expect((await end(flight.uuid, { reason: '' })).status).to.equal(422);
  });

  it('window close: when an Approved flight was never activated, then the sweep ends it (not_activated), its authorisation expired and an event published', async () => {
    const flight = await approved();
    const authorisation = await authorisationStatus(flight.uuid);
    clock = new Date(flight.end_time).getTime() - MINUTE;
    await endClosedFlights(t.service.deps);
    expect((await record(flight.uuid)).status).to.equal('Approved');
    clock = new Date(flight.end_time).getTime();
    expect(await endClosedFlights(t.service.deps)).to.be.at.least(1);
    const ended = await record(flight.uuid);
    expect(ended.status).to.equal('Ended');
    expect(ended.activation).to.deep.include({ activated_at: null, end_reason: 'not_activated' });
    expect(ended.status_history.at(-1)).to.include({
      status: 'Ended',
      actor: 'system',
      reason: 'The flight window closed before the flight was activated.',
    });
    expect((await statusEvent(flight.uuid, 'Ended')).data).to.include({ previous_status: 'Approved', actor: 'system' });
    expect(await authorisation.status()).to.equal('expired');
  });

  it('window close: when an Activated flight outlasts its window, then the sweep ends it only after the grace (window_closed)', async () => {
    const flight = await approved();
    into(flight);
    await activate(flight.uuid);
    clock = new Date(flight.end_time).getTime() + (GRACE_MINUTES - 1) * MINUTE;
    await endClosedFlights(t.service.deps);
    expect((await record(flight.uuid)).status).to.equal('Activated');
    clock = new Date(flight.end_time).getTime() + GRACE_MINUTES * MINUTE;
    await endClosedFlights(t.service.deps);
    const ended = await record(flight.uuid);
    expect(ended.status).to.equal('Ended');
    expect(ended.activation.end_reason).to.equal('window_closed');
    expect(ended.activation.activated_at).to.be.a('string');
    expect(await endClosedFlights(t.service.deps)).to.equal(0);
  });

  it('window close: when the operator ends the flight while the sweep runs, then exactly one Ended entry is written', async () => {
    const flight = await approved();
    into(flight);
    await activate(flight.uuid);
    clock = new Date(flight.end_time).getTime() + GRACE_MINUTES * MINUTE + HOUR;
    await Promise.all([end(flight.uuid), endClosedFlights(t.service.deps)]);
    const history = (await record(flight.uuid)).status_history.map((entry: { status: string }) => entry.status);
    expect(history).to.deep.equal(['Pending', 'Approved', 'Activated', 'Ended']);
  });
});

function isoSeconds(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
