import { expect } from 'chai';
import type { Altitude } from '@dfc/contracts';
import { DEFAULT_SCREENING_RULES, screen, type ApprovedFlight, type ScreeningInput } from '../../../src/domain/screening/screen.js';
import { boundsOfAll, type FlightVolume } from '../../../src/domain/volumes/flight-volume.js';
import { ownFormatParts, type GeoZone } from '../../../src/domain/zones/geo-zone.js';
import { areaFeature, polygon, rectangle } from '../geometry/fixtures.js';

const OPERATOR = '0d6f7a4e-3f55-4c4b-9a8e-1f2b3c4d5e6f';
const OTHER_OPERATOR = '7b1e0c55-9d2a-4f0e-8c3b-2a1b0c9d8e7f';
const HOUR = 3_600_000;
const START = new Date('2026-12-01T10:00:00Z');
const AREA = [areaFeature(polygon(rectangle(4.8, 52.3, 4.81, 52.31)))];

const agl = (value: number): Altitude => ({ value, reference: 'AGL', units: 'm' });

function volume(index: number, band: [number, number], hour = 0, polygons = AREA): FlightVolume {
  return {
    index,
    polygons,
    bbox: boundsOfAll(polygons),
    start: new Date(START.getTime() + hour * HOUR),
    end: new Date(START.getTime() + (hour + 1) * HOUR),
    lower: agl(band[0]),
    upper: agl(band[1]),
  };
}

function input(volumes: FlightVolume[], overrides: Partial<ScreeningInput> = {}): ScreeningInput {
  return {
    polygons: volumes.flatMap((entry) => entry.polygons),
    bbox: boundsOfAll(volumes.flatMap((entry) => entry.polygons)),
    start: START,
    end: new Date(START.getTime() + 3 * HOUR),
    maxAltitudeM: Math.max(...volumes.map((entry) => entry.upper.value)),
    volumes,
    operatorUuid: OPERATOR,
    operator: { exemption_for_ctr: false },
    zones: [],
    approvedFlights: [],
    rules: DEFAULT_SCREENING_RULES,
    ...overrides,
  };
}

function zone(overrides: Partial<GeoZone> & Pick<GeoZone, 'id'>): GeoZone {
  const fields: Omit<GeoZone, 'identifier' | 'country' | 'volumes' | 'applicability' | 'published' | 'dataset_id'> = {
    name: `Zone ${overrides.id}`,
    type: 'OTHER',
    restriction: 'REQ_AUTHORISATION',
    lower_limit_m: 0,
    upper_limit_m: 50,
    schedule: null,
    authority: 'LVNL',
    ctr_exemption_ceiling_m: null,
    geometry: polygon(rectangle(4.7, 52.2, 4.9, 52.4)),
    ...overrides,
  };
  return { ...fields, ...ownFormatParts(fields), ...overrides };
}

function flight(volumes: FlightVolume[]): ApprovedFlight {
  return {
    uuid: 'f1',
    operator_uuid: OTHER_OPERATOR,
    start: START,
    end: new Date(START.getTime() + 3 * HOUR),
    max_altitude: 120,
    polygons: AREA,
    volumes,
  };
}

describe('screen, per volume', () => {
  it('when a zone meets one volume in band, then only that volume has the finding, and the zone one item', () => {
    const result = screen(input([volume(0, [60, 100]), volume(1, [0, 40], 1), volume(2, [10, 20], 2)], { zones: [zone({ id: 'low' })] }));
    expect(result.outcome).to.equal('Pending');
    expect(result.findings.map((finding) => [finding.code, finding.volume])).to.deep.equal([
      ['ZONE_REQUIRES_AUTHORISATION', 1],
      ['ZONE_REQUIRES_AUTHORISATION', 2],
    ]);
    expect(result.findings[0]?.message).to.match(/^Volume 1: /);
    expect(result.items).to.have.length(1);
  });

  it("when a zone is active outside a volume's own window, then that volume does not meet it", () => {
    const schedule = { start: '2026-12-01T11:00:00Z', end: '2026-12-01T12:00:00Z' };
    const event = zone({ id: 'event', restriction: 'PROHIBITED', type: 'TEMPORARY', schedule, upper_limit_m: 1000 });
    expect(screen(input([volume(0, [0, 50], 0)], { zones: [event] })).outcome).to.equal('Approved');
    const during = screen(input([volume(0, [0, 50], 0), volume(1, [0, 50], 1)], { zones: [event] }));
    expect(during.outcome).to.equal('Rejected');
    expect(during.findings.map((finding) => finding.volume)).to.deep.equal([1]);
  });

  it('when one volume flies above 120 m, then the altitude review names it', () => {
    const result = screen(input([volume(0, [0, 50]), volume(1, [100, 150], 1)]));
    expect(result.findings.map((finding) => [finding.code, finding.volume])).to.deep.equal([['ALTITUDE_ABOVE_LIMIT', 1]]);
    expect(result.findings[0]?.message).to.contain('Volume 1 reaches 150 m above the ground');
  });

  it("when another operator's volume shares area and time but not band, then no conflict; sharing all four, the finding names our volume and the shared band", () => {
    const theirs = flight([volume(0, [40, 60]), volume(1, [0, 30], 2)]);
    expect(screen(input([volume(0, [0, 40]), volume(1, [60, 100])], { approvedFlights: [theirs] })).outcome).to.equal('Approved');
    const result = screen(input([volume(0, [0, 40]), volume(1, [50, 100])], { approvedFlights: [theirs] }));
    expect(result.outcome).to.equal('Pending');
    expect(result.findings.map((finding) => [finding.volume, finding.conflict])).to.deep.equal([
      [
        1,
        {
          start_time: '2026-12-01T10:00:00+00:00',
          end_time: '2026-12-01T11:00:00+00:00',
          lower_altitude_m: 50,
          upper_altitude_m: 60,
          bbox: [4.8, 52.3, 4.81, 52.31],
        },
      ],
    ]);
    expect(result.findings[0]?.message).to.match(/^Volume 1 of the flight overlaps/);
  });
});
