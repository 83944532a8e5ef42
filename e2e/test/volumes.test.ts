import { expect } from 'chai';
import { boxRing, flightRequestExample } from '@dfc/contracts';
import { isoZ, type GatewayClient, type RegisteredOperator } from '../src/client.js';
import { hoursAhead, registerOperators, startFlightReplicas } from '../src/flight-replicas.js';
import type { System } from '../src/system.js';

const HOUR = 3_600_000;
const ROUNDS = 2;

interface Window {
  start: Date;
  end: Date;
}

const agl = (value: number) => ({ value, reference: 'AGL', units: 'm' });

/** A square of 0.01° at `corner`, between two altitudes (AGL metres unless given), over `when`. */
function volume(corner: [number, number], band: [number, number], when: Window, overrides: Record<string, unknown> = {}) {
  return {
    geometry: {
      type: 'Polygon',
      coordinates: [boxRing(corner, 0.01)],
    },
    altitude_lower: agl(band[0]),
    altitude_upper: agl(band[1]),
    start_time: isoZ(when.start),
    end_time: isoZ(when.end),
    ...overrides,
  };
}

/**
 * 4-D volumes through the gateway (issue 50), with two flight-request-service
 * processes behind it: flights conflict only when they share area, altitude
 * band and time, whichever replica decides; a request written to the seed's
 * interface is stored, listed and rendered as before.
 */
describe('4-D volumes, across two flight-request-service processes', function () {
  this.timeout(600_000);
  let system: System;
  let client: GatewayClient;

  before(async () => {
    ({ system, client } = await startFlightReplicas());
  });
  after(async () => system?.stop());

  const operators = (count: number) => registerOperators(client, count);
  const hours = (fromNow: number, length = 1): Window => {
    const start = hoursAhead(fromNow);
    return { start, end: new Date(start.getTime() + length * HOUR) };
  };
  const withVolumes = (operator: RegisteredOperator, volumes: unknown[]) => {
    const {
      start_time: _start,
      end_time: _end,
      max_altitude: _ceiling,
      flight_area: _area,
      ...fields
    } = flightRequestExample({
      operatorUuid: operator.uuid,
      operatorEmail: operator.email,
    });
    return { ...fields, volumes };
  };
  const submit = (operator: RegisteredOperator, body: unknown) => client.send('POST', '/api/flight-requests', { key: operator.key, body });
  const statusOf = (answer: { status: number; body: { data?: { status: string } } }) => answer.body.data?.status ?? String(answer.status);

  it('POST /api/flight-requests: when operators submit volumes that overlap in all four dimensions at the same instant, then the approved set is conflict-free and the others name the shared volume', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const owners = await operators(7);
      const when = hours(3 + round * 2);
      // A chain of volumes at rising bands: each shares 10 m with the next, nothing with the one after (all below 120 m).
      const answers = await Promise.all(
        owners.map((owner, index) => submit(owner, withVolumes(owner, [volume([6.0 + round * 0.3, 52.7], [index * 15, index * 15 + 25], when)]))),
      );
      expect(answers.map((answer) => answer.status)).to.deep.equal(owners.map(() => 201));
      const approved = answers.map((answer, index) => (statusOf(answer) === 'Approved' ? index : -1)).filter((index) => index >= 0);
      expect(approved.length, `round ${round}`).to.be.greaterThan(0);
      for (const index of approved) expect(approved, `neighbours of ${index} are not both approved`).not.to.include(index + 1);
      for (const [index, answer] of answers.entries()) {
        if (statusOf(answer) === 'Approved') continue;
        expect(statusOf(answer)).to.equal('Pending');
        const conflicts = answer.body.data.review.findings.filter((finding: { code: string }) => finding.code === 'DECONFLICTION_OVERLAP');
        expect(conflicts.length).to.be.greaterThan(0);
        for (const finding of conflicts) {
          expect(finding.volume).to.equal(0);
          const { lower_altitude_m: lower, upper_altitude_m: upper } = finding.conflict;
          expect([
            [index * 15, index * 15 + 10],
            [index * 15 + 15, index * 15 + 25],
          ]).to.deep.include([lower, upper]);
        }
      }
    }
  });

  it('POST /api/flight-requests: when volumes share only area and time, area and band, or band and time, then all are Approved', async () => {
    const [a, b, c, d] = await operators(4);
    const when = hours(10);
    const later = { start: when.end, end: new Date(when.end.getTime() + HOUR) };
    const answers = [
      await submit(a!, withVolumes(a!, [volume([6.5, 52.7], [0, 30], when), volume([6.6, 52.7], [60, 100], later)])),
      await submit(b!, withVolumes(b!, [volume([6.5, 52.7], [30, 60], when)])),
      await submit(c!, withVolumes(c!, [volume([6.5, 52.7], [0, 30], later)])),
      await submit(d!, withVolumes(d!, [volume([6.52, 52.7], [0, 30], when), volume([6.6, 52.7], [60, 100], when)])),
    ];
    expect(answers.map(statusOf)).to.deep.equal(['Approved', 'Approved', 'Approved', 'Approved']);
  });

  it('POST /api/flight-requests: when a request is written to the seed interface, then it is stored, listed and rendered as before, with one volume from the ground', async () => {
    const [owner] = await operators(1);
    const when = hours(14);
    const body = flightRequestExample({
      operatorUuid: owner!.uuid,
      operatorEmail: owner!.email,
      start: when.start,
      end: when.end,
      corner: [6.7, 52.7],
    });
    const created = await submit(owner!, body);
    expect(created.status).to.equal(201);
    const record = created.body.data;
    for (const field of ['operator_name', 'operator_email', 'operator_phone', 'start_time', 'end_time', 'max_altitude', 'aircraft_type', 'purpose']) {
      expect(record[field], field).to.equal(body[field]);
    }
    expect(record.volumes).to.deep.equal([
      {
        start_time: body['start_time'],
        end_time: body['end_time'],
        altitude_lower: agl(0),
        altitude_upper: agl(100),
        bbox: record.area.bbox,
        features: [0],
      },
    ]);
    const read = await client.send('GET', `/api/v1/flight-requests/${record.uuid}?include_geometry=true`, { key: owner!.key });
    expect(read.body.data.flight_area).to.deep.equal(body['flight_area']);
    const listed = await client.send('GET', '/api/flight-requests?status=Approved', { key: owner!.key });
    expect(listed.body.data.map((entry: { uuid: string }) => entry.uuid)).to.deep.equal([record.uuid]);
  });

  it('POST /api/flight-requests: when a volume breaks a limit, then 422 names its path', async () => {
    const [owner] = await operators(1);
    const when = hours(16);
    const cases: Array<[unknown[], string]> = [
      [[volume([6.8, 52.7], [50, 40], when)], 'volumes.0.altitude_upper.value'],
      [
        [volume([6.8, 52.7], [0, 40], when), volume([6.8, 52.7], [0, 40], when, { altitude_upper: { value: 40, reference: 'AGL', units: 'km' } })],
        'volumes.1.altitude_upper.units',
      ],
      [Array.from({ length: 21 }, () => volume([6.8, 52.7], [0, 40], when)), 'volumes'],
      [[volume([6.8, 52.7], [0, 40], { start: when.end, end: when.start })], 'volumes.0.end_time'],
    ];
    for (const [volumes, path] of cases) {
      const answer = await submit(owner!, withVolumes(owner!, volumes));
      expect(answer.status, path).to.equal(422);
      expect(Object.keys(answer.body.errors)).to.include(path);
    }
  });

  it('POST /api/flight-requests/preview: when a zone meets one volume only, then its finding names that volume', async () => {
    const [owner] = await operators(1);
    const zone = await client.send('POST', '/api/zones', {
      key: system.adminKey,
      body: {
        name: 'Low airfield',
        type: 'AIRPORT',
        restriction: 'REQ_AUTHORISATION',
        lower_limit_m: 0,
        upper_limit_m: 50,
        authority: 'LVNL',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [6.9, 52.6],
              [7.0, 52.6],
              [7.0, 52.8],
              [6.9, 52.8],
              [6.9, 52.6],
            ],
          ],
        },
      },
    });
    expect(zone.status).to.equal(201);
    const when = hours(18);
    const body = withVolumes(owner!, [
      volume([6.95, 52.7], [60, 100], when),
      volume([6.95, 52.7], [0, 40], { start: when.end, end: new Date(when.end.getTime() + HOUR) }),
    ]);
    const preview = await client.send('POST', '/api/flight-requests/preview', { key: owner!.key, body });
    expect(preview.status).to.equal(200);
    expect(preview.body.data.findings.map((finding: { code: string; volume: number }) => [finding.code, finding.volume])).to.deep.equal([
      ['ZONE_REQUIRES_AUTHORISATION', 1],
    ]);
  });

  it('POST /api/flight-requests: when a volume is given in AMSL feet, then it is stored as sent and compared with AMSL volumes exactly', async () => {
    const [a, b] = await operators(2);
    const when = hours(22);
    const amsl = (value: number) => ({ value, reference: 'AMSL', units: 'ft' });
    const first = await submit(a!, withVolumes(a!, [volume([7.2, 52.7], [0, 0], when, { altitude_lower: amsl(100), altitude_upper: amsl(200) })]));
    const above = await submit(
      b!,
      withVolumes(b!, [
        volume([7.2, 52.7], [0, 0], when, { altitude_lower: { value: 61, reference: 'AMSL', units: 'm' }, altitude_upper: amsl(300) }),
      ]),
    );
    expect([statusOf(first), statusOf(above)]).to.deep.equal(['Approved', 'Approved']);
    expect(first.body.data.volumes[0].altitude_upper).to.deep.equal(amsl(200));
    expect(first.body.data.max_altitude).to.equal(61);
  });
});
