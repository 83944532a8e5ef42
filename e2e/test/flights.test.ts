import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, isoZ, WebhookReceiver, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/**
 * Flights as operators fly and change them, through the gateway: activation
 * inside the window, the end, the window closing on a flight never flown,
 * and amendments, each heard by the operator's webhook receiver.
 */
describe('activation, end and amendments through the gateway', function () {
  this.timeout(180_000);
  let system: System;
  let gateway: GatewayClient;
  let pilot: RegisteredOperator;
  let rival: RegisteredOperator;
  const receiver = new WebhookReceiver();
  let lon = 7.1;

  /** Registration reaches flight-request-service through events: submit once it knows the operator. */
  const submit = (client: RegisteredOperator, body: unknown) =>
    waitFor(async () => {
      const response = await gateway.send('POST', '/api/flight-requests', { key: client.key, body });
      return response.status === 422 && response.body.errors?.operator_uuid ? undefined : response;
    }, 15_000);
  const nextLon = () => (lon += 0.02);
  /** A window that has just started (the start may lie a few minutes back) and lasts `ms`. */
  const startingNow = (ms: number) => {
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    return { start_time: isoZ(start), end_time: isoZ(new Date(start.getTime() + ms)) };
  };
  const hooks = (uuid: string, kind: string) => receiver.about(uuid, kind).map((hook) => hook.body.data);
  const heard = (uuid: string, kind: string, predicate: (data: Record<string, unknown>) => boolean) =>
    waitFor(() => hooks(uuid, kind).find(predicate), 30_000, 50);
  const authorisationOf = async (client: RegisteredOperator, uuid: string) =>
    (await gateway.send('GET', `/api/v1/flight-requests/${uuid}/authorisation`, { key: client.key })).body.data?.jti as string;
  const publicStatus = async (jti: string) => (await gateway.send('GET', `/api/v1/authorisations/${jti}`)).body.data.status as string;

  before(async () => {
    system = await startSystem({
      env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800' },
      serviceEnv: { 'flight-request-service': { EXPIRY_SWEEP_INTERVAL_MS: '500' } },
    });
    gateway = new GatewayClient(system.gatewayUrl);
    await receiver.start();
    pilot = await gateway.registerOperatorWithKey();
    rival = await gateway.registerOperatorWithKey();
    const subscribed = await gateway.send('POST', '/api/webhooks', {
      key: pilot.key,
      body: { url: receiver.url, events: ['status_change', 'amendment'] },
    });
    expect(subscribed.status).to.equal(201);
  });
  after(async () => {
    await receiver.close();
    await system?.stop();
  });

  it('POST /api/v1/flight-requests/{uuid}/activate inside the window, then /end: Activated and Ended, each a status_change webhook; the authorisation valid, then expired', async () => {
    const flight = await submit(pilot, flightRequestBody(pilot, startingNow(3_600_000), nextLon()));
    expect(flight.body.data.status).to.equal('Approved');
    const uuid = flight.body.data.uuid as string;
    const jti = await authorisationOf(pilot, uuid);

    const activated = await gateway.send('POST', `/api/v1/flight-requests/${uuid}/activate`, { key: pilot.key });
    expect(activated.status).to.equal(200);
    expect(activated.body.data.status).to.equal('Activated');
    expect(await publicStatus(jti)).to.equal('valid');
    expect(await heard(uuid, 'status_change', (data) => data['status'] === 'Activated')).to.include({ previous_status: 'Approved', sequence: 3 });

    const ended = await gateway.send('POST', `/api/v1/flight-requests/${uuid}/end`, { key: pilot.key, body: { reason: 'Landed' } });
    expect(ended.status).to.equal(200);
    expect(ended.body.data.status).to.equal('Ended');
    expect(ended.body.data.activation.end_reason).to.equal('ended_by_operator');
    expect(await heard(uuid, 'status_change', (data) => data['status'] === 'Ended')).to.include({ previous_status: 'Activated', reason: 'Landed' });
    expect(await publicStatus(jti)).to.equal('expired');
  });

  it('POST …/activate before the window starts, or on a Pending request, is 409; a body field is 422 naming it', async () => {
    const ahead = await submit(pilot, flightRequestBody(pilot, {}, nextLon()));
    expect(ahead.body.data.status).to.equal('Approved');
    const early = await gateway.send('POST', `/api/flight-requests/${ahead.body.data.uuid}/activate`, { key: pilot.key });
    expect(early.status).to.equal(409);
    expect(early.body.message).to.equal('A flight cannot be activated before its flight window starts.');
    const invalid = await gateway.send('POST', `/api/flight-requests/${ahead.body.data.uuid}/activate`, { key: pilot.key, body: { now: true } });
    expect(invalid.status).to.equal(422);
    expect(invalid.body.errors).to.have.keys('now');
    const pending = await submit(pilot, flightRequestBody(pilot, { ...startingNow(3_600_000), max_altitude: 200 }, nextLon()));
    expect(pending.body.data.status).to.equal('Pending');
    const refused = await gateway.send('POST', `/api/flight-requests/${pending.body.data.uuid}/activate`, { key: pilot.key });
    expect(refused.status).to.equal(409);
  });

  it('an Activated flight blocks a conflicting approval: another operator’s submission of its airspace stays Pending for deconfliction', async () => {
    const at = nextLon();
    const window = startingNow(3_600_000);
    const flight = await submit(pilot, flightRequestBody(pilot, window, at));
    const uuid = flight.body.data.uuid as string;
    expect((await gateway.send('POST', `/api/flight-requests/${uuid}/activate`, { key: pilot.key })).body.data.status).to.equal('Activated');
    const theirs = await submit(rival, flightRequestBody(rival, window, at));
    expect(theirs.status).to.equal(201);
    expect(theirs.body.data.status).to.equal('Pending');
    expect(theirs.body.data.review.findings.map((finding: { code: string }) => finding.code)).to.include('DECONFLICTION_OVERLAP');
  });

  it('the window closes on an Approved flight never activated: the system ends it (not_activated) and the receiver hears Ended', async () => {
    const flight = await submit(pilot, flightRequestBody(pilot, startingNow(4_000), nextLon()));
    expect(flight.body.data.status).to.equal('Approved');
    const uuid = flight.body.data.uuid as string;
    const ended = await heard(uuid, 'status_change', (data) => data['status'] === 'Ended');
    expect(ended).to.include({ previous_status: 'Approved', actor: 'system', reason: 'The flight window closed before the flight was activated.' });
    const record = await gateway.send('GET', `/api/v1/flight-requests/${uuid}`, { key: pilot.key });
    expect(record.body.data.status).to.equal('Ended');
    expect(record.body.data.activation).to.include({ activated_at: null, end_reason: 'not_activated' });
  });

  it('PATCH /api/v1/flight-requests/{uuid} of the purpose: approved again with a new authorisation, the old one revoked, an amendment webhook', async () => {
    const flight = await submit(pilot, flightRequestBody(pilot, {}, nextLon()));
    const uuid = flight.body.data.uuid as string;
    const oldJti = await authorisationOf(pilot, uuid);
    const amended = await gateway.send('PATCH', `/api/v1/flight-requests/${uuid}`, {
      key: pilot.key,
      body: { purpose: 'Roof inspection, north wing' },
    });
    expect(amended.status).to.equal(200);
    expect(amended.body.data).to.include({ status: 'Approved', revision: 2, purpose: 'Roof inspection, north wing' });
    const newJti = await authorisationOf(pilot, uuid);
    expect(newJti).to.not.equal(oldJti);
    expect(await publicStatus(oldJti)).to.equal('revoked');
    expect(await publicStatus(newJti)).to.equal('valid');
    const hook = await heard(uuid, 'amendment', (data) => data['revision'] === 2);
    expect(hook).to.deep.include({ previous_status: 'Approved', status: 'Approved', changed: ['purpose'], revoked_authorisation: oldJti });
  });

  it('PATCH into another operator’s approved volume is not approved: Pending with a deconfliction item, the old authorisation revoked', async () => {
    const at = nextLon();
    const theirs = await submit(rival, flightRequestBody(rival, {}, at));
    expect(theirs.body.data.status).to.equal('Approved');
    const ours = await submit(pilot, flightRequestBody(pilot, {}, nextLon()));
    const uuid = ours.body.data.uuid as string;
    const oldJti = await authorisationOf(pilot, uuid);
    const moved = await gateway.send('PATCH', `/api/flight-requests/${uuid}`, {
      key: pilot.key,
      body: { flight_area: flightRequestBody(rival, {}, at).flight_area },
    });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.status).to.equal('Pending');
    expect(moved.body.data.review.items.map((item: { kind: string }) => item.kind)).to.deep.equal(['deconfliction']);
    expect(await publicStatus(oldJti)).to.equal('revoked');
    expect(await heard(uuid, 'amendment', (data) => data['revision'] === 2)).to.include({ status: 'Pending' });
  });

  it('PATCH with an unknown field is 422 naming it; of an Ended request is 409', async () => {
    const flight = await submit(pilot, flightRequestBody(pilot, {}, nextLon()));
    const uuid = flight.body.data.uuid as string;
    const unknown = await gateway.send('PATCH', `/api/flight-requests/${uuid}`, { key: pilot.key, body: { operator_name: 'Someone else' } });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.errors).to.have.keys('operator_name');
    const started = await submit(pilot, flightRequestBody(pilot, startingNow(3_600_000), nextLon()));
    await gateway.send('POST', `/api/flight-requests/${started.body.data.uuid}/activate`, { key: pilot.key });
    await gateway.send('POST', `/api/flight-requests/${started.body.data.uuid}/end`, { key: pilot.key });
    const refused = await gateway.send('PATCH', `/api/flight-requests/${started.body.data.uuid}`, { key: pilot.key, body: { purpose: 'Again' } });
    expect(refused.status).to.equal(409);
    expect(refused.body.message).to.equal('An Ended flight request cannot be amended.');
  });
});
