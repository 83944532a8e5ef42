import { areasIntersect } from '../geometry/flight-area.js';
import { activeDuring } from '../zones/applicability.js';
import type { GeoZone, VerticalLimit } from '../zones/geo-zone.js';
import type { Altitude } from '../volumes/flight-volume.js';
import { describeLimit, flightBandMeets, NO_VERTICAL_MODEL } from '../zones/vertical.js';
import type { Finding, ReviewItemDraft, ScreeningInput } from './types.js';

/** What one zone the flight really meets means for it (PRODUCT.md "Automatic screening"). */
export interface ZoneOutcome {
  finding: Finding | null;
  item: ReviewItemDraft | null;
}

/** How the flight meets a zone: in time, and in area and height in at least one of its volumes. */
export interface ZoneMeeting {
  /** A limit that is not AGL counted as met because no terrain covers the flight area. */
  terrainUnknown: boolean;
}

type FlightFacts = Pick<ScreeningInput, 'maxAltitudeM' | 'operator'>;

/** What of a flight volume a zone is met by: its area, box, window and band (a request without volumes: [0, max_altitude] AGL). */
export type MeetingInput = Pick<ScreeningInput, 'polygons' | 'bbox' | 'start' | 'end' | 'maxAltitudeM' | 'rules'> & {
  lower?: Altitude;
  upper?: Altitude;
};

/**
 * Null when the flight misses the zone: its window meets none of the zone's
 * active intervals (computed at the flight's position, which daylight events
 * depend on), or no volume meets both its area and its altitude band.
 */
export function zoneMeeting(zone: GeoZone, input: MeetingInput): ZoneMeeting | null {
  const [west, south, east, north] = input.bbox;
  const position: [number, number] = [(west + east) / 2, (south + north) / 2];
  if (!activeDuring(zone.applicability, position, input.start.getTime(), input.end.getTime())) return null;
  const model = input.rules.vertical ?? NO_VERTICAL_MODEL;
  const flight = {
    lower: input.lower ? limitOf(input.lower) : { value: 0, reference: 'AGL' as const, uom: 'm' as const },
    upper: input.upper ? limitOf(input.upper) : { value: input.maxAltitudeM, reference: 'AGL' as const, uom: 'm' as const },
  };
  let met = false;
  let terrainUnknown = false;
  for (const volume of zone.volumes) {
    const band = flightBandMeets(volume, flight, input.bbox, model);
    if (!band.meets) continue;
    if (!areasIntersect(input.polygons, [{ type: 'Feature', properties: {}, geometry: volume.geometry }])) continue;
    met = true;
    terrainUnknown ||= band.terrainUnknown;
  }
  return met ? { terrainUnknown } : null;
}

function limitOf(altitude: Altitude): VerticalLimit {
  return { value: altitude.value, reference: altitude.reference, uom: altitude.units };
}

export function zoneOutcome(zone: GeoZone, flight: FlightFacts, meeting: ZoneMeeting = { terrainUnknown: false }): ZoneOutcome {
  const where = describeZone(zone, meeting);
  switch (zone.restriction) {
    case 'PROHIBITED':
      return { finding: finding(zone, 'ZONE_PROHIBITED', `The flight enters prohibited ${where}.`, meeting), item: null };
    case 'REQ_AUTHORISATION':
      return authorisationOutcome(zone, flight, where, meeting);
    case 'CONDITIONAL':
      return {
        finding: finding(zone, 'ZONE_CONDITIONAL', `The flight enters conditional ${where}: its conditions apply.`, meeting),
        item: null,
      };
    case 'USPACE':
      return {
        finding: finding(zone, 'ZONE_USPACE', `The flight enters U-space airspace ${where}: it needs U-space services.`, meeting),
        item: null,
      };
    case 'NO_RESTRICTION':
      // Nothing to decide, but a published message is what the authority wants a pilot there to read.
      return (zone.published?.messages.length ?? 0) > 0
        ? {
            finding: finding(
              zone,
              'ZONE_INFORMATION',
              `The flight enters ${where}, which restricts nothing: its published message applies.`,
              meeting,
            ),
            item: null,
          }
        : { finding: null, item: null };
  }
}

/** `zone "Schiphol CTR" (nl-eham-ctr, 0–914 m)`; a published zone names its country and identifier and its limits as published. */
function describeZone(zone: GeoZone, meeting: ZoneMeeting): string {
  const terrain = meeting.terrainUnknown ? '; terrain unknown here, so its limits count as met' : '';
  if (zone.published === null || zone.identifier === null)
    return `zone "${zone.name}" (${zone.id}, ${zone.lower_limit_m}–${zone.upper_limit_m} m${terrain})`;
  const bands = zone.volumes.map((volume) => `${describeLimit(volume.lower)}–${describeLimit(volume.upper)}`);
  return `zone "${zone.name}" (${zone.country} ${zone.identifier}, ${[...new Set(bands)].join(', ')}${terrain})`;
}

function finding(zone: GeoZone, code: Finding['code'], message: string, meeting: ZoneMeeting): Finding {
  const base: Finding = { code, message, zone_id: zone.id, zone_name: zone.name, authority: zone.authority };
  if (zone.identifier !== null) Object.assign(base, { zone_identifier: zone.identifier, zone_country: zone.country });
  if (meeting.terrainUnknown) base.terrain_unknown = true;
  return base;
}

/** A REQ_AUTHORISATION zone needs its authority, unless it is a CTR and the operator's exemption covers the height. */
function authorisationOutcome(zone: GeoZone, { maxAltitudeM, operator }: FlightFacts, where: string, meeting: ZoneMeeting): ZoneOutcome {
  const ceiling = zone.ctr_exemption_ceiling_m;
  const exemptable = zone.type === 'CTR' && operator.exemption_for_ctr && ceiling !== null;
  if (exemptable && maxAltitudeM <= ceiling) {
    const message = `The operator's CTR exemption covers ${where} up to ${ceiling} m; the max altitude is ${maxAltitudeM} m.`;
    return { finding: finding(zone, 'CTR_EXEMPTION_APPLIED', message, meeting), item: null };
  }
  const reason = exemptable ? ` The max altitude of ${maxAltitudeM} m is above the CTR exemption ceiling of ${ceiling} m.` : '';
  const message = `The flight enters ${where}, which needs authorisation by ${zone.authority}.${reason}`;
  return {
    finding: finding(zone, 'ZONE_REQUIRES_AUTHORISATION', message, meeting),
    item: {
      kind: 'zone_authorisation',
      authority: zone.authority,
      zone_id: zone.id,
      finding_codes: ['ZONE_REQUIRES_AUTHORISATION'],
      message,
    },
  };
}
