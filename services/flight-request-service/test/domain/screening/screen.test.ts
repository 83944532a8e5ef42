import { expect } from 'chai';
import type { Polygon } from 'geojson';
import { DEFAULT_SCREENING_RULES, screen, type ApprovedFlight, type ScreeningInput } from '../../../src/domain/screening/screen.js';
import { ownFormatParts, type GeoZone } from '../../../src/domain/zones/geo-zone.js';
import { areaFeature, polygon, rectangle } from '../geometry/fixtures.js';

const OPERATOR = '0d6f7a4e-3f55-4c4b-9a8e-1f2b3c4d5e6f';
const OTHER_OPERATOR = '7b1e0c55-9d2a-4f0e-8c3b-2a1b0c9d8e7f';
const FLIGHT_AREA = polygon(rectangle(4.8, 52.3, 4.81, 52.31));
const START = new Date('2026-12-01T10:00:00Z');
const END = new Date('2026-12-01T12:00:00Z');

function zone(overrides: Partial<GeoZone> & Pick<GeoZone, 'id'>): GeoZone {
  const fields: Omit<GeoZone, 'identifier' | 'country' | 'volumes' | 'applicability' | 'published' | 'dataset_id'> = {
    name: `Zone ${overrides.id}`,
    type: 'OTHER',
    restriction: 'REQ_AUTHORISATION',
    lower_limit_m: 0,
    upper_limit_m: 1000,
    schedule: null,
    authority: 'LVNL',
    ctr_exemption_ceiling_m: null,
    geometry: polygon(rectangle(4.7, 52.2, 4.9, 52.4)),
    ...overrides,
  };
  return { ...fields, ...ownFormatParts(fields), ...overrides };
}

function flight(overrides: Partial<ApprovedFlight> & Pick<ApprovedFlight, 'uuid'>): ApprovedFlight {
  return {
    operator_uuid: OTHER_OPERATOR,
    start: START,
    end: END,
    max_altitude: 100,
    polygons: [areaFeature(polygon(rectangle(4.805, 52.305, 4.82, 52.32)))],
    ...overrides,
  };
}

function input(overrides: Partial<ScreeningInput> = {}): ScreeningInput {
  return {
    polygons: [areaFeature(FLIGHT_AREA)],
    bbox: [4.8, 52.3, 4.81, 52.31],
    start: START,
    end: END,
    maxAltitudeM: 100,
    operatorUuid: OPERATOR,
    operator: { exemption_for_ctr: false },
    zones: [],
    approvedFlights: [],
    rules: DEFAULT_SCREENING_RULES,
    ...overrides,
  };
}

const codes = (result: ReturnType<typeof screen>) => result.findings.map((finding) => finding.code);

describe('screen', () => {
  it('when nothing applies, then the request is Approved with no findings', () => {
    expect(screen(input())).to.deep.equal({ outcome: 'Approved', findings: [], items: [] });
  });

  describe('zones', () => {
    it('when the area enters a PROHIBITED zone, then it is Rejected with no review items', () => {
      const result = screen(input({ zones: [zone({ id: 'core', restriction: 'PROHIBITED' }), zone({ id: 'ctr' })] }));
      expect(result.outcome).to.equal('Rejected');
      expect(result.items).to.deep.equal([]);
      expect(result.findings[0]).to.deep.include({ code: 'ZONE_PROHIBITED', zone_id: 'core', zone_name: 'Zone core', authority: 'LVNL' });
      expect(result.findings[0]?.message).to.contain('prohibited').and.contain('Zone core');
    });

    it("when the area enters a REQ_AUTHORISATION zone, then an item goes to the zone's authority", () => {
      const result = screen(input({ zones: [zone({ id: 'mil', type: 'MILITARY', authority: 'MIL' })] }));
      expect(result.outcome).to.equal('Pending');
      expect(codes(result)).to.deep.equal(['ZONE_REQUIRES_AUTHORISATION']);
      expect(result.items).to.have.length(1);
      expect(result.items[0]).to.deep.include({
        kind: 'zone_authorisation',
        authority: 'MIL',
        zone_id: 'mil',
        finding_codes: ['ZONE_REQUIRES_AUTHORISATION'],
      });
    });

    it('when the area enters a CONDITIONAL zone, then it is noted and still Approved', () => {
      const result = screen(input({ zones: [zone({ id: 'nature', restriction: 'CONDITIONAL', authority: 'NATURE' })] }));
      expect(result.outcome).to.equal('Approved');
      expect(codes(result)).to.deep.equal(['ZONE_CONDITIONAL']);
    });

    it('when the zone has NO_RESTRICTION, then there is no finding', () => {
      expect(screen(input({ zones: [zone({ id: 'rc', restriction: 'NO_RESTRICTION' })] }))).to.deep.equal({
        outcome: 'Approved',
        findings: [],
        items: [],
      });
    });

    it("when the zone's altitude band starts above the flight, then there is no finding", () => {
      const high = zone({ id: 'high', restriction: 'PROHIBITED', lower_limit_m: 101, upper_limit_m: 3000 });
      expect(screen(input({ zones: [high] })).outcome).to.equal('Approved');
      expect(screen(input({ zones: [zone({ id: 'high', restriction: 'PROHIBITED', lower_limit_m: 100, upper_limit_m: 3000 })] })).outcome).to.equal(
        'Rejected',
      );
    });

    it("when the zone's schedule does not overlap the flight window, then there is no finding", () => {
      const event = (schedule: GeoZone['schedule']) => zone({ id: 'event', type: 'TEMPORARY', restriction: 'PROHIBITED', schedule });
      const before = { start: '2026-12-01T06:00:00Z', end: '2026-12-01T10:00:00Z' };
      const during = { start: '2026-12-01T11:59:00Z', end: '2026-12-01T23:00:00Z' };
      expect(screen(input({ zones: [event(before)] })).outcome).to.equal('Approved');
      expect(screen(input({ zones: [event(during)] })).outcome).to.equal('Rejected');
    });

    it("when the zone's bbox covers the area but its polygon does not (an L-shape), then there is no finding", () => {
      const lShape: Polygon = polygon([
        [4.7, 52.2],
        [4.9, 52.2],
        [4.9, 52.25],
        [4.75, 52.25],
        [4.75, 52.4],
        [4.7, 52.4],
        [4.7, 52.2],
      ]);
      expect(screen(input({ zones: [zone({ id: 'l', restriction: 'PROHIBITED', geometry: lShape })] })).outcome).to.equal('Approved');
    });
  });

  describe('CTR exemption', () => {
    const ctr = zone({ id: 'eham-ctr', type: 'CTR', ctr_exemption_ceiling_m: 60 });

    it('when the operator holds an exemption and flies within the ceiling, then the CTR needs no item', () => {
      const result = screen(input({ zones: [ctr], operator: { exemption_for_ctr: true }, maxAltitudeM: 60 }));
      expect(result.outcome).to.equal('Approved');
      expect(codes(result)).to.deep.equal(['CTR_EXEMPTION_APPLIED']);
      expect(result.findings[0]?.message).to.contain('60 m');
    });

    it('when the operator holds an exemption but flies above the ceiling, then LVNL gets an item', () => {
      const result = screen(input({ zones: [ctr], operator: { exemption_for_ctr: true }, maxAltitudeM: 61 }));
      expect(result.outcome).to.equal('Pending');
      expect(result.items.map((item) => [item.kind, item.authority, item.zone_id])).to.deep.equal([['zone_authorisation', 'LVNL', 'eham-ctr']]);
      expect(result.items[0]?.message).to.contain('above the CTR exemption ceiling of 60 m');
    });

    it('when the operator holds no exemption, then the CTR needs an item even low down', () => {
      expect(screen(input({ zones: [ctr], maxAltitudeM: 30 })).items).to.have.length(1);
    });

    it('when a non-CTR zone carries a ceiling, then the exemption does not apply to it', () => {
      const military = zone({ id: 'mil', type: 'MILITARY', authority: 'MIL', ctr_exemption_ceiling_m: 60 });
      expect(screen(input({ zones: [military], operator: { exemption_for_ctr: true }, maxAltitudeM: 30 })).items).to.have.length(1);
    });
  });

  describe('altitude', () => {
    it('when max_altitude is 120, then no item; 121, then an item for NATIONAL', () => {
      expect(screen(input({ maxAltitudeM: 120 })).outcome).to.equal('Approved');
      const result = screen(input({ maxAltitudeM: 121 }));
      expect(result.outcome).to.equal('Pending');
      expect(result.findings).to.deep.equal([
        {
          code: 'ALTITUDE_ABOVE_LIMIT',
          message: 'The max altitude of 121 m is above 120 m: the NATIONAL authority must authorise it.',
          zone_id: null,
          zone_name: null,
          authority: 'NATIONAL',
        },
      ]);
      expect(result.items[0]).to.deep.include({ kind: 'altitude', authority: 'NATIONAL', zone_id: null });
    });

    it('when the rules name other values, then they are used', () => {
      const result = screen(input({ maxAltitudeM: 100, rules: { altitudeReviewAboveM: 90, nationalAuthority: 'ILT' } }));
      expect(result.items[0]).to.deep.include({ kind: 'altitude', authority: 'ILT' });
    });
  });

  describe('deconfliction', () => {
    it("when another operator's approved flight overlaps in area and time, then one item and a finding per flight with only the shared volume", () => {
      const later = flight({ uuid: 'f2', start: new Date('2026-12-01T11:00:00Z'), end: new Date('2026-12-01T13:00:00Z'), max_altitude: 80 });
      const result = screen(input({ approvedFlights: [later, flight({ uuid: 'f1' })] }));
      expect(result.outcome).to.equal('Pending');
      expect(result.findings.map((finding) => finding.conflict)).to.deep.equal([
        {
          start_time: '2026-12-01T10:00:00+00:00',
          end_time: '2026-12-01T12:00:00+00:00',
          lower_altitude_m: 0,
          upper_altitude_m: 100,
          bbox: [4.805, 52.305, 4.81, 52.31],
        },
        {
          start_time: '2026-12-01T11:00:00+00:00',
          end_time: '2026-12-01T12:00:00+00:00',
          lower_altitude_m: 0,
          upper_altitude_m: 80,
          bbox: [4.805, 52.305, 4.81, 52.31],
        },
      ]);
      expect(result.findings[1]?.message).to.equal(
        'The flight overlaps an approved flight of another operator from 2026-12-01T11:00:00+00:00 to 2026-12-01T12:00:00+00:00, ' +
          'from 0 m up to 80 m, within [4.805, 52.305, 4.81, 52.31].',
      );
      expect(result.items).to.have.length(1);
      expect(result.items[0]).to.deep.include({ kind: 'deconfliction', authority: 'NATIONAL', zone_id: null });
      for (const text of [JSON.stringify(result.findings), JSON.stringify(result.items)]) {
        expect(text).not.to.contain('f1');
        expect(text).not.to.contain('f2');
        expect(text).not.to.contain(OTHER_OPERATOR);
      }
    });

    it("when the overlapping approved flight is the same operator's, then there is no item", () => {
      expect(screen(input({ approvedFlights: [flight({ uuid: 'f1', operator_uuid: OPERATOR })] })).outcome).to.equal('Approved');
    });

    it('when the other flight ends as this one starts, then there is no item', () => {
      const earlier = flight({ uuid: 'f1', start: new Date('2026-12-01T08:00:00Z'), end: START });
      expect(screen(input({ approvedFlights: [earlier] })).outcome).to.equal('Approved');
    });

    it('when the other flight is elsewhere at the same time, then there is no item', () => {
      const elsewhere = flight({ uuid: 'f1', polygons: [areaFeature(polygon(rectangle(5, 52, 5.01, 52.01)))] });
      expect(screen(input({ approvedFlights: [elsewhere] })).outcome).to.equal('Approved');
    });
  });

  describe('determinism', () => {
    it('when the same input arrives in another order, then the result is the same, findings sorted by code then zone', () => {
      const zones = [
        zone({ id: 'b', authority: 'MIL' }),
        zone({ id: 'a' }),
        zone({ id: 'n', restriction: 'CONDITIONAL' }),
        zone({ id: 'c', type: 'CTR', ctr_exemption_ceiling_m: 200 }),
      ];
      const flights = [flight({ uuid: 'f2', max_altitude: 60 }), flight({ uuid: 'f1' })];
      const base = { zones, approvedFlights: flights, maxAltitudeM: 150, operator: { exemption_for_ctr: true } };
      const first = screen(input(base));
      const second = screen(input({ ...base, zones: [...zones].reverse(), approvedFlights: [...flights].reverse() }));
      expect(second).to.deep.equal(first);
      expect(first.findings.map((finding) => [finding.code, finding.zone_id])).to.deep.equal([
        ['ALTITUDE_ABOVE_LIMIT', null],
        ['CTR_EXEMPTION_APPLIED', 'c'],
        ['DECONFLICTION_OVERLAP', null],
        ['DECONFLICTION_OVERLAP', null],
        ['ZONE_CONDITIONAL', 'n'],
        ['ZONE_REQUIRES_AUTHORISATION', 'a'],
        ['ZONE_REQUIRES_AUTHORISATION', 'b'],
      ]);
      expect(first.items.map((item) => [item.kind, item.authority, item.zone_id])).to.deep.equal([
        ['altitude', 'NATIONAL', null],
        ['deconfliction', 'NATIONAL', null],
        ['zone_authorisation', 'LVNL', 'a'],
        ['zone_authorisation', 'MIL', 'b'],
      ]);
    });

    it('when a zone appears twice among the candidates, then it counts once', () => {
      const twice = zone({ id: 'a' });
      expect(screen(input({ zones: [twice, twice] })).items).to.have.length(1);
    });
  });
});
