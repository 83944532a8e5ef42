import { expect } from 'chai';
import { admin, operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { isoZ, square, submission } from '../support/fixtures.js';
import { zoneBody } from '../support/zones.js';

const HOUR = 3_600_000;

interface Window {
  start: Date;
  end: Date;
}

/** A window of `hours` starting `fromNowHours` ahead, on whole seconds. */
function window(fromNowHours: number, hours = 1): Window {
  const start = new Date(Math.ceil((Date.now() + fromNowHours * HOUR) / 1000) * 1000);
  return { start, end: new Date(start.getTime() + hours * HOUR) };
}

const agl = (value: number) => ({ value, reference: 'AGL', units: 'm' });

/** A volume over a square of 0.01° at `at`, between two AGL heights (or the altitudes given), over `when`. */
function volume(at: [number, number], band: [number, number], when: Window, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    geometry: { type: 'Polygon', coordinates: square(at[0], at[1]) },
    altitude_lower: agl(band[0]),
    altitude_upper: agl(band[1]),
    start_time: isoZ(when.start),
    end_time: isoZ(when.end),
    ...overrides,
  };
}

/** A submission of volumes: the spec's window, ceiling and area left out, as the volumes form them. */
function withVolumes(operatorUuid: string, volumes: unknown[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { start_time: _start, end_time: _end, max_altitude: _ceiling, flight_area: _area, ...fields } = submission(operatorUuid);
  return { ...fields, volumes, ...overrides };
}

/**
 * 4-D volumes (issue 50): stored and shown beside the spec's fields, their
 * limits as 422s naming the volume, screening per volume, and deconfliction
 * in area, band and time on two replicas of one database.
 */
describe('flight requests with 4-D volumes', function () {
  this.timeout(180_000);
  let one: TestService;
  let two: TestService;
  const replica = (index: number) => (index % 2 === 0 ? one : two);

  before(async () => {
    one = await startTestService({ env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
    two = await startTestService({ shared: one.shared, env: { EXPIRY_SWEEP_INTERVAL_MS: '3600000' } });
  });
  after(async () => {
    await two.close();
    await one.close();
  });

  const operators = (count: number) => Promise.all(Array.from({ length: count }, () => one.seedOperator()));
  const submit = (owner: string, body: unknown, index = 0) =>
    replica(index).call('POST', '/api/flight-requests', { as: operatorPrincipal(owner), body });
  const get = async (uuid: string, query = '') => (await one.call('GET', `/api/flight-requests/${uuid}${query}`, { as: admin })).body.data;

  it('POST /api/flight-requests: when a request is written to the interface spec, then it is stored, listed and rendered as before, with the one volume its fields form', async () => {
    const [owner] = await operators(1);
    const body = submission(owner!, { flight_area: { type: 'FeatureCollection', features: [0, 1].map((i) => feature(30 + i * 0.02, 40)) } });
    const created = await submit(owner!, body);
    expect(created.status).to.equal(201);
    const record = created.body.data;
    expect(record).to.include({ start_time: body['start_time'], end_time: body['end_time'], max_altitude: 100, status: 'Approved' });
    expect(record.volumes).to.deep.equal([
      {
        start_time: body['start_time'],
        end_time: body['end_time'],
        altitude_lower: agl(0),
        altitude_upper: agl(100),
        bbox: record.area.bbox,
        features: [0, 1],
      },
    ]);
    const read = await get(record.uuid, '?include_geometry=true');
    expect(read.flight_area.features).to.have.length(2);
    expect(read.volumes).to.deep.equal(record.volumes);
    const listed = await one.call('GET', '/api/flight-requests', { as: operatorPrincipal(owner!) });
    expect(listed.body.data.map((entry: { uuid: string; volumes: unknown }) => [entry.uuid, entry.volumes])).to.deep.equal([
      [record.uuid, record.volumes],
    ]);
  });

  it('POST /api/flight-requests: when a request has volumes, then the record shows them and the spec fields as their envelope, and the flight area as their areas', async () => {
    const [owner] = await operators(1);
    const first = window(3);
    const second = { start: first.end, end: new Date(first.end.getTime() + HOUR) };
    const circle = { geometry: { type: 'Point', coordinates: [31.5, 40.5] }, radius_m: 300 };
    const body = withVolumes(owner!, [
      volume([31, 40], [0, 60], first),
      volume([31, 40], [60, 110], second, { ...circle, altitude_upper: agl(110) }),
    ]);
    const preview = await one.call('POST', '/api/flight-requests/preview', { as: operatorPrincipal(owner!), body });
    expect(preview.status).to.equal(200);
    const created = await submit(owner!, body);
    expect(created.status).to.equal(201);
    const record = created.body.data;
    expect(record).to.include({ start_time: isoZ(first.start), end_time: isoZ(second.end), max_altitude: 110, status: 'Approved' });
    expect(record.volumes.map((entry: { features: number[] }) => entry.features)).to.deep.equal([[0], [1]]);
    expect(record.volumes[1]).to.deep.include({ start_time: isoZ(second.start), altitude_lower: agl(60), altitude_upper: agl(110) });
    expect(preview.body.data.volumes).to.deep.equal(record.volumes);
    const read = await get(record.uuid, '?include_geometry=true');
    expect(read.flight_area.features[1]).to.deep.equal({ type: 'Feature', properties: { radius_m: 300 }, geometry: circle.geometry });
    expect(read.flight_area.features[0].geometry.type).to.equal('Polygon');

    const authorisation = await one.call('GET', `/api/flight-requests/${record.uuid}/authorisation`, { as: operatorPrincipal(owner!) });
    expect(authorisation.status).to.equal(200);
    expect(authorisation.body.data.claims.volumes).to.deep.equal(record.volumes);
  });

  it('POST /api/flight-requests: when the spec fields are sent with volumes, then they must agree with them, and flight_area must be left out', async () => {
    const [owner] = await operators(1);
    const when = window(5);
    const volumes = [volume([32, 40], [10, 80], when)];
    const agreeing = await submit(owner!, withVolumes(owner!, volumes, { start_time: isoZ(when.start), end_time: isoZ(when.end), max_altitude: 80 }));
    expect(agreeing.status).to.equal(201);
    const disagreeing = await submit(
      owner!,
      withVolumes(owner!, volumes, {
        start_time: isoZ(new Date(when.start.getTime() + 60_000)),
        max_altitude: 120,
        flight_area: { type: 'FeatureCollection', features: [feature(32, 40)] },
      }),
    );
    expect(disagreeing.status).to.equal(422);
    expect(Object.keys(disagreeing.body.errors).sort()).to.deep.equal(['flight_area', 'max_altitude', 'start_time']);
    expect(disagreeing.body.errors.start_time[0]).to.contain("volumes' earliest start");
  });

  it('POST /api/flight-requests: when a volume breaks a limit, then 422 names its JSON path, and nothing is stored', async () => {
    const [owner] = await operators(1);
    const when = window(6);
    const at: [number, number] = [33, 40];
    const good = volume(at, [0, 50], when);
    const refusals: Array<[string, unknown, string]> = [
      ['too many volumes', Array.from({ length: 21 }, () => good), 'volumes'],
      ['no volume', [], 'volumes'],
      ['not a list', 'everywhere', 'volumes'],
      ['upper not above lower', [good, volume(at, [60, 60], when)], 'volumes.1.altitude_upper.value'],
      [
        'references differ',
        [volume(at, [0, 50], when, { altitude_upper: { value: 50, reference: 'AMSL', units: 'm' } })],
        'volumes.0.altitude_upper.reference',
      ],
      ['above the ceiling', [volume(at, [0, 501], when)], 'volumes.0.altitude_upper.value'],
      [
        'above the ceiling in feet',
        [volume(at, [0, 50], when, { altitude_upper: { value: 1700, reference: 'AGL', units: 'ft' } })],
        'volumes.0.altitude_upper.value',
      ],
      ['below the ground', [volume(at, [-10, 50], when)], 'volumes.0.altitude_lower.value'],
      [
        'unknown reference',
        [volume(at, [0, 50], when, { altitude_lower: { value: 0, reference: 'QNH', units: 'm' } })],
        'volumes.0.altitude_lower.reference',
      ],
      [
        'unknown units',
        [volume(at, [0, 50], when, { altitude_lower: { value: 0, reference: 'AGL', units: 'yd' } })],
        'volumes.0.altitude_lower.units',
      ],
      [
        'value not a number',
        [volume(at, [0, 50], when, { altitude_lower: { value: '0', reference: 'AGL', units: 'm' } })],
        'volumes.0.altitude_lower.value',
      ],
      ['no lower limit', [{ ...good, altitude_lower: undefined }], 'volumes.0.altitude_lower'],
      ['an unknown field', [{ ...good, colour: 'red' }], 'volumes.0.colour'],
      ['end before start', [volume(at, [0, 50], { start: when.end, end: when.start })], 'volumes.0.end_time'],
      ['start in the past', [volume(at, [0, 50], { start: new Date(Date.now() - HOUR), end: when.end })], 'volumes.0.start_time'],
      [
        'a window over 24 hours',
        [good, volume(at, [60, 90], { start: new Date(when.start.getTime() + 24 * HOUR), end: new Date(when.end.getTime() + 24 * HOUR) })],
        'volumes',
      ],
      [
        'an open ring',
        [
          volume(at, [0, 50], when, {
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [33, 40],
                  [33.01, 40],
                  [33.01, 40.01],
                  [33, 40.01],
                ],
              ],
            },
          }),
        ],
        'volumes.0.geometry.coordinates.0',
      ],
      ['a circle without radius', [volume(at, [0, 50], when, { geometry: { type: 'Point', coordinates: [33, 40] } })], 'volumes.0.radius_m'],
      ['a radius beside a polygon', [volume(at, [0, 50], when, { radius_m: 50 })], 'volumes.0.radius_m'],
      [
        'a line',
        [
          volume(at, [0, 50], when, {
            geometry: {
              type: 'LineString',
              coordinates: [
                [33, 40],
                [33.1, 40],
              ],
            },
          }),
        ],
        'volumes.0.geometry.type',
      ],
      [
        'too many positions',
        [volume(at, [0, 50], when, { geometry: { type: 'Polygon', coordinates: [manyPositions(2001)] } })],
        'volumes.0.geometry',
      ],
    ];
    for (const [story, volumes, path] of refusals) {
      const answer = await submit(owner!, withVolumes(owner!, volumes as unknown[]));
      expect(answer.status, story).to.equal(422);
      expect(Object.keys(answer.body.errors), `${story}: ${JSON.stringify(answer.body.errors)}`).to.include(path);
    }
    const withoutEither = await submit(owner!, withVolumes(owner!, [good], { volumes: undefined }));
    expect(withoutEither.status).to.equal(422);
    expect(withoutEither.body.errors.start_time).to.deep.equal(['The start time field is required.']);
    const listed = await one.call('GET', '/api/flight-requests', { as: operatorPrincipal(owner!) });
    expect(listed.body.data).to.deep.equal([]);
  });

  it('POST /api/flight-requests: when a zone meets only one volume, then screening finds it for that volume alone, in band and in time', async () => {
    const [owner] = await operators(1);
    const created = await one.call('POST', '/api/zones', {
      as: admin,
      body: zoneBody({ lower_limit_m: 0, upper_limit_m: 50, authority: 'LVNL', name: 'Low zone' }, 34, 40, 0.2),
    });
    expect(created.status).to.equal(201);
    const when = window(7);
    const later = { start: when.end, end: new Date(when.end.getTime() + HOUR) };
    const body = withVolumes(owner!, [volume([34.05, 40.05], [60, 100], when), volume([34.05, 40.05], [0, 40], later)]);
    const record = (await submit(owner!, body)).body.data;
    expect(record.status).to.equal('Pending');
    expect(record.review.findings.map((finding: { code: string; volume: number }) => [finding.code, finding.volume])).to.deep.equal([
      ['ZONE_REQUIRES_AUTHORISATION', 1],
    ]);
    expect(record.review.items.map((item: { authority: string }) => item.authority)).to.deep.equal(['LVNL']);

    const scheduled = await one.call('POST', '/api/zones', {
      as: admin,
      body: zoneBody(
        { restriction: 'PROHIBITED', type: 'TEMPORARY', schedule: { start: isoZ(when.start), end: isoZ(when.end) }, authority: 'POLICE' },
        35,
        40,
        0.2,
      ),
    });
    expect(scheduled.status).to.equal(201);
    const outside = withVolumes(owner!, [volume([35.05, 40.05], [0, 40], later)]);
    expect((await submit(owner!, outside)).body.data.status, 'the zone is not active in the volume’s own window').to.equal('Approved');
  });

  it('POST /api/flight-requests: when volumes share only area and time, only area and band, or only band and time with another operator’s, then both are Approved', async () => {
    const [a, b, c, d] = await operators(4);
    const when = window(9);
    const at: [number, number] = [36, 40];
    const first = await submit(a!, withVolumes(a!, [volume(at, [0, 40], when)]), 0);
    const otherBand = await submit(b!, withVolumes(b!, [volume(at, [40, 90], when)]), 1);
    const otherTime = await submit(c!, withVolumes(c!, [volume(at, [0, 40], { start: when.end, end: new Date(when.end.getTime() + HOUR) })]), 0);
    const otherArea = await submit(d!, withVolumes(d!, [volume([36.02, 40], [0, 40], when)]), 1);
    expect([first, otherBand, otherTime, otherArea].map((answer) => answer.body.data.status)).to.deep.equal([
      'Approved',
      'Approved',
      'Approved',
      'Approved',
    ]);

    const specField = await submit(
      b!,
      submission(b!, { flight_area: { type: 'FeatureCollection', features: [feature(36, 40)] }, ...times(when) }),
      0,
    );
    expect(specField.body.data.status, 'a flight from the ground up meets the band 0–40 m').to.equal('Pending');
    const [finding] = specField.body.data.review.findings;
    expect(finding.conflict).to.deep.include({ lower_altitude_m: 0, upper_altitude_m: 40 });
    expect(finding).not.to.have.property('volume');
  });

  it('POST /api/flight-requests: when 10 operators submit volumes that overlap in all four dimensions at once on two replicas, then exactly one is Approved and the others name the shared volume', async () => {
    for (let round = 0; round < 2; round++) {
      const owners = await operators(10);
      const when = window(12 + round * 3);
      const at: [number, number] = [37 + round * 0.5, 40];
      const answers = await Promise.all(
        owners.map((owner, index) =>
          submit(owner, withVolumes(owner, [volume([37.5 + index * 0.02, 41 + round], [0, 30], when), volume(at, [50, 80], when)]), index),
        ),
      );
      expect(answers.map((answer) => answer.status)).to.deep.equal(owners.map(() => 201));
      const statuses = answers.map((answer) => answer.body.data.status as string);
      expect(
        statuses.filter((status) => status === 'Approved'),
        `round ${round}: ${statuses.join(',')}`,
      ).to.have.length(1);
      for (const answer of answers.filter((candidate) => candidate.body.data.status === 'Pending')) {
        const conflicts = answer.body.data.review.findings.filter((finding: { code: string }) => finding.code === 'DECONFLICTION_OVERLAP');
        expect(conflicts.map((finding: { volume: number }) => finding.volume)).to.deep.equal([1]);
        expect(conflicts[0].conflict).to.deep.include({
          lower_altitude_m: 50,
          upper_altitude_m: 80,
          start_time: when.start.toISOString().replace('.000Z', '+00:00'),
        });
      }
    }
  });

  it('POST /api/flight-requests: when a volume is in AMSL feet and no terrain is known, then it conflicts with an AGL volume below it conservatively, named above mean sea level, and not with one in AMSL above it', async () => {
    const [a, b, c] = await operators(3);
    const when = window(20);
    const at: [number, number] = [38, 40];
    const amsl = (value: number) => ({ value, reference: 'AMSL', units: 'ft' });
    const high = await submit(a!, withVolumes(a!, [volume(at, [0, 0], when, { altitude_lower: amsl(100), altitude_upper: amsl(200) })]));
    expect(high.status).to.equal(201);
    expect(high.body.data.status).to.equal('Approved');
    expect(high.body.data.max_altitude, '200 ft measured from mean sea level, where no terrain is known').to.equal(61);
    expect(high.body.data.volumes[0].altitude_upper).to.deep.equal(amsl(200));
    const above = await submit(b!, withVolumes(b!, [volume(at, [0, 0], when, { altitude_lower: amsl(200), altitude_upper: amsl(300) })]), 1);
    expect(above.body.data.status, 'bands of one reference compare exactly').to.equal('Approved');
    const low = await submit(c!, withVolumes(c!, [volume(at, [0, 30], when)]), 1);
    expect(low.body.data.status).to.equal('Pending');
    const conflicts = low.body.data.review.findings.filter((finding: { code: string }) => finding.code === 'DECONFLICTION_OVERLAP');
    expect(conflicts.map((finding: { conflict: { altitude_reference: string } }) => finding.conflict.altitude_reference)).to.deep.equal([
      'AMSL',
      'AMSL',
    ]);
  });
});

function feature(lon: number, lat: number) {
  return { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(lon, lat) } };
}

function times(when: Window) {
  return { start_time: isoZ(when.start), end_time: isoZ(when.end) };
}

/** A closed ring of `count` positions around a small circle. */
function manyPositions(count: number): number[][] {
  const ring = Array.from({ length: count - 1 }, (_, i) => {
    const angle = (2 * Math.PI * i) / (count - 1);
    return [33 + 0.005 * Math.cos(angle), 40 + 0.005 * Math.sin(angle)];
  });
  return [...ring, ring[0]!];
}
