import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { FlightRequestStatus } from '@dfc/contracts';
import { liftAgainstZone, rescreenAgainstZone, type ScreenedRequest } from '../../../src/domain/rescreening/zone-rescreening.js';
import { DEFAULT_SCREENING_RULES } from '../../../src/domain/screening/screen.js';
import { ownFormatParts, type GeoZone } from '../../../src/domain/zones/geo-zone.js';
import { square } from '../../support/fixtures.js';

const flightSquare = square(4.95, 52.05, 0.01);

function request(status: FlightRequestStatus, overrides: Partial<ScreenedRequest> = {}): ScreenedRequest {
  return {
    status,
    start_time: new Date('2026-12-01T10:00:00Z'),
    end_time: new Date('2026-12-01T11:00:00Z'),
    max_altitude: 100,
    operator_uuid: randomUUID(),
    area: { bbox: [4.95, 52.05, 4.96, 52.06] },
    geometry: { polygons: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: flightSquare } }] },
    review: { findings: [], items: [] },
    ...overrides,
  };
}

function zone(overrides: Partial<GeoZone> = {}): GeoZone {
  const fields: Omit<GeoZone, 'identifier' | 'country' | 'volumes' | 'applicability' | 'published' | 'dataset_id'> = {
    id: 'zone-1',
    name: 'Zone',
    type: 'TEMPORARY',
    restriction: 'PROHIBITED',
    lower_limit_m: 0,
    upper_limit_m: 500,
    schedule: null,
    authority: 'POLICE',
    ctr_exemption_ceiling_m: null,
    geometry: { type: 'Polygon', coordinates: square(4.9, 52.0, 0.2) },
    ...overrides,
  };
  return { ...fields, ...ownFormatParts(fields), ...overrides };
}

const operator = { exemption_for_ctr: false };

describe('rescreenAgainstZone', () => {
  it('when a prohibited zone covers an approved flight, then the approval is rescinded with the zone’s finding', () => {
    const outcome = rescreenAgainstZone(request('Approved'), zone(), operator, DEFAULT_SCREENING_RULES);
    expect(outcome.effect).to.equal('rescind');
    expect(outcome.effect === 'rescind' && outcome.finding).to.include({ code: 'ZONE_PROHIBITED', zone_id: 'zone-1' });
  });

  it('when a prohibited or an authorisation zone covers a flight in the air (Activated), then its operator is told and nothing else changes', () => {
    for (const restriction of ['PROHIBITED', 'REQ_AUTHORISATION'] as const) {
      const outcome = rescreenAgainstZone(request('Activated'), zone({ restriction, authority: 'LVNL' }), operator, DEFAULT_SCREENING_RULES);
      expect(outcome.effect, restriction).to.equal('notice');
      expect(outcome.effect === 'notice' && outcome.findings.map((finding) => finding.zone_id)).to.deep.equal(['zone-1']);
    }
  });

  it('when a request has volumes, then each is screened on its own: a zone over one volume’s area but above its band changes nothing, one in the band names the volume', () => {
    const at = (lower: number, upper: number) => ({
      bbox: [4.95, 52.05, 4.96, 52.06] as [number, number, number, number],
      start_time: new Date('2026-12-01T10:00:00Z'),
      end_time: new Date('2026-12-01T11:00:00Z'),
      altitude_lower: { value: lower, reference: 'AGL' as const, units: 'm' as const },
      altitude_upper: { value: upper, reference: 'AGL' as const, units: 'm' as const },
    });
    const low = request('Approved', { max_altitude: 90, volumes: [at(0, 30)] });
    expect(rescreenAgainstZone(low, zone({ lower_limit_m: 50 }), operator, DEFAULT_SCREENING_RULES).effect).to.equal('none');
    const high = request('Approved', { max_altitude: 90, volumes: [at(60, 90)] });
    const outcome = rescreenAgainstZone(high, zone({ lower_limit_m: 50 }), operator, DEFAULT_SCREENING_RULES);
    expect(outcome.effect === 'rescind' && outcome.finding).to.include({ code: 'ZONE_PROHIBITED', volume: 0 });
  });

  it('when a prohibited zone covers a pending flight, then it is rejected', () => {
    expect(rescreenAgainstZone(request('Pending'), zone(), operator, DEFAULT_SCREENING_RULES).effect).to.equal('reject');
  });

  it('when a zone needing authorisation covers a pending flight, then its item is added, once', () => {
    const authorisation = zone({ restriction: 'REQ_AUTHORISATION', authority: 'LVNL' });
    const outcome = rescreenAgainstZone(request('Pending'), authorisation, operator, DEFAULT_SCREENING_RULES);
    expect(outcome.effect).to.equal('review');
    if (outcome.effect !== 'review') return;
    expect(outcome.items.map((item) => [item.kind, item.authority, item.zone_id])).to.deep.equal([['zone_authorisation', 'LVNL', 'zone-1']]);
    const withItem = request('Pending', {
      review: {
        findings: outcome.findings,
        items: [
          {
            id: 'i',
            kind: 'zone_authorisation',
            authority: 'LVNL',
            zone_id: 'zone-1',
            finding_codes: [],
            message: '',
            status: 'approved',
            reason: null,
            decided_at: null,
            decided_by: null,
          },
        ],
      },
    });
    expect(rescreenAgainstZone(withItem, authorisation, operator, DEFAULT_SCREENING_RULES).effect).to.equal('none');
  });

  it('when a zone needing authorisation covers an approved flight, then the approval is suspended with an item for its authority', () => {
    const outcome = rescreenAgainstZone(
      request('Approved'),
      zone({ restriction: 'REQ_AUTHORISATION', authority: 'LVNL' }),
      operator,
      DEFAULT_SCREENING_RULES,
    );
    expect(outcome.effect).to.equal('suspend');
    if (outcome.effect !== 'suspend') return;
    expect(outcome.items.map((item) => [item.kind, item.authority, item.zone_id])).to.deep.equal([['zone_authorisation', 'LVNL', 'zone-1']]);
    expect(outcome.findings.map((finding) => finding.code)).to.deep.equal(['ZONE_REQUIRES_AUTHORISATION']);
  });

  it('when a conditional zone covers an approved flight, then the operator gets a notice and the approval stands', () => {
    const outcome = rescreenAgainstZone(request('Approved'), zone({ restriction: 'CONDITIONAL' }), operator, DEFAULT_SCREENING_RULES);
    expect(outcome.effect).to.equal('notice');
    expect(outcome.effect === 'notice' && outcome.findings.map((finding) => finding.code)).to.deep.equal(['ZONE_CONDITIONAL']);
  });

  it('when the zone that suspended a flight now allows it, or is deleted, then the suspension is lifted', () => {
    const suspended = request('Suspended', { suspension: { zone_ids: ['zone-1'] } });
    expect(rescreenAgainstZone(suspended, zone({ restriction: 'NO_RESTRICTION' }), operator, DEFAULT_SCREENING_RULES)).to.deep.equal({
      effect: 'lift',
      findings: [],
    });
    expect(liftAgainstZone(suspended, { id: 'zone-1' })).to.deep.equal({ effect: 'lift', findings: [] });
    expect(liftAgainstZone(request('Approved'), { id: 'zone-1' })).to.deep.equal({ effect: 'none' });
    expect(rescreenAgainstZone(suspended, zone({ restriction: 'REQ_AUTHORISATION' }), operator, DEFAULT_SCREENING_RULES).effect).to.not.equal('lift');
  });

  it('when the zone is above the flight, outside its window, or elsewhere, then nothing changes', () => {
    const misses = [
      zone({ lower_limit_m: 150 }),
      zone({ schedule: { start: '2026-12-02T00:00:00Z', end: '2026-12-03T00:00:00Z' } }),
      zone({ geometry: { type: 'Polygon', coordinates: square(6, 53, 0.1) } }),
    ];
    for (const missing of misses)
      expect(rescreenAgainstZone(request('Approved'), missing, operator, DEFAULT_SCREENING_RULES).effect).to.equal('none');
  });
});
