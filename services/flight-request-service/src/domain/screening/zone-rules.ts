import type { GeoZone } from '../zones/geo-zone.js';
import type { Finding, ReviewItemDraft, ScreeningInput } from './types.js';

/** What one zone the flight really meets means for it (PRODUCT.md "Automatic screening"). */
export interface ZoneOutcome {
  finding: Finding | null;
  item: ReviewItemDraft | null;
}

type FlightFacts = Pick<ScreeningInput, 'maxAltitudeM' | 'operator'>;

export function zoneOutcome(zone: GeoZone, flight: FlightFacts): ZoneOutcome {
  const where = `zone "${zone.name}" (${zone.id}, ${zone.lower_limit_m}–${zone.upper_limit_m} m)`;
  switch (zone.restriction) {
    case 'PROHIBITED':
      return { finding: finding(zone, 'ZONE_PROHIBITED', `The flight enters prohibited ${where}.`), item: null };
    case 'REQ_AUTHORISATION':
      return authorisationOutcome(zone, flight, where);
    case 'CONDITIONAL':
      return {
        finding: finding(zone, 'ZONE_CONDITIONAL', `The flight enters conditional ${where}: its conditions apply.`),
        item: null,
      };
    case 'NO_RESTRICTION':
      return { finding: null, item: null };
  }
}

function finding(zone: GeoZone, code: Finding['code'], message: string): Finding {
  return { code, message, zone_id: zone.id, zone_name: zone.name, authority: zone.authority };
}

/** A REQ_AUTHORISATION zone needs its authority, unless it is a CTR and the operator's exemption covers the height. */
function authorisationOutcome(zone: GeoZone, { maxAltitudeM, operator }: FlightFacts, where: string): ZoneOutcome {
  const ceiling = zone.ctr_exemption_ceiling_m;
  const exemptable = zone.type === 'CTR' && operator.exemption_for_ctr && ceiling !== null;
  if (exemptable && maxAltitudeM <= ceiling) {
    const message =
      `The operator's CTR exemption covers ${where} up to ${ceiling} m; the max altitude is ${maxAltitudeM} m.`;
    return { finding: finding(zone, 'CTR_EXEMPTION_APPLIED', message), item: null };
  }
  const reason = exemptable
    ? ` The max altitude of ${maxAltitudeM} m is above the CTR exemption ceiling of ${ceiling} m.`
    : '';
  const message = `The flight enters ${where}, which needs authorisation by ${zone.authority}.${reason}`;
  return {
    finding: finding(zone, 'ZONE_REQUIRES_AUTHORISATION', message),
    item: {
      kind: 'zone_authorisation',
      authority: zone.authority,
      zone_id: zone.id,
      finding_codes: ['ZONE_REQUIRES_AUTHORISATION'],
      message,
    },
  };
}
