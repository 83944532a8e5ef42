import type { GeoZone } from '../zones/geo-zone.js';
import { compareIds } from '../zones/zone-index.js';
import { conflictingFlights, deconflictionFindings, deconflictionItem } from './deconfliction.js';
import type { Finding, ReviewItemDraft, ScreeningInput, ScreeningRules } from './types.js';
import { zoneMeeting, zoneOutcome, type ZoneMeeting } from './zone-rules.js';

/*
 * Automatic screening of a submission (PRODUCT.md "Review"): pure and
 * deterministic, every finding explained. Only what really intersects counts:
 * the area (true polygon intersection), the altitude band [0, max_altitude]
 * against each volume's limits in their references, and the flight window
 * against the zone's active intervals.
 */

export type { ApprovedFlight, ConflictVolume, Finding, FindingCode, ReviewItemDraft, ScreeningInput, ScreeningRules } from './types.js';

/** PRODUCT.md: above 120 m, the national authority reviews. */
export const DEFAULT_SCREENING_RULES: ScreeningRules = { altitudeReviewAboveM: 120, nationalAuthority: 'NATIONAL' };

export interface ScreeningResult {
  outcome: 'Approved' | 'Rejected' | 'Pending';
  findings: Finding[];
  items: ReviewItemDraft[];
}

export function screen(input: ScreeningInput): ScreeningResult {
  const findings: Finding[] = [];
  const items: ReviewItemDraft[] = [];

  for (const { zone, meeting } of relevantZones(input)) {
    const outcome = zoneOutcome(zone, input, meeting);
    if (outcome.finding) findings.push(outcome.finding);
    if (outcome.item) items.push(outcome.item);
  }

  const altitude = altitudeReview(input);
  if (altitude) {
    findings.push(altitude.finding);
    items.push(altitude.item);
  }

  const conflicts = conflictingFlights(input);
  if (conflicts.length > 0) {
    findings.push(...deconflictionFindings(conflicts, input));
    items.push(deconflictionItem(conflicts, input.rules));
  }

  findings.sort(compareFindings);
  items.sort(compareItems);
  // A prohibited zone ends it: there is nothing left for a reviewer to decide.
  if (findings.some((finding) => finding.code === 'ZONE_PROHIBITED')) {
    return { outcome: 'Rejected', findings, items: [] };
  }
  return { outcome: items.length > 0 ? 'Pending' : 'Approved', findings, items };
}

/** Candidate zones that the flight meets in time, area and height (zone-rules.ts), each once. */
function relevantZones(input: ScreeningInput): Array<{ zone: GeoZone; meeting: ZoneMeeting }> {
  const unique = new Map(input.zones.map((zone) => [zone.id, zone]));
  return [...unique.values()].flatMap((zone) => {
    const meeting = zoneMeeting(zone, input);
    return meeting ? [{ zone, meeting }] : [];
  });
}

function altitudeReview(input: ScreeningInput): { finding: Finding; item: ReviewItemDraft } | null {
  const { maxAltitudeM, rules } = input;
  if (maxAltitudeM <= rules.altitudeReviewAboveM) return null;
  const authority = rules.nationalAuthority;
  const message =
    `The max altitude of ${maxAltitudeM} m is above ${rules.altitudeReviewAboveM} m: ` + `the ${authority} authority must authorise it.`;
  return {
    finding: { code: 'ALTITUDE_ABOVE_LIMIT', message, zone_id: null, zone_name: null, authority },
    item: { kind: 'altitude', authority, zone_id: null, finding_codes: ['ALTITUDE_ABOVE_LIMIT'], message },
  };
}

function compareFindings(a: Finding, b: Finding): number {
  return compareIds(a.code, b.code) || compareIds(a.zone_id ?? '', b.zone_id ?? '') || compareIds(conflictKey(a), conflictKey(b));
}

/** Conflicts sort by their window, then their band and area, so equal input gives equal output. */
function conflictKey(finding: Finding): string {
  const conflict = finding.conflict;
  return conflict === undefined ? '' : JSON.stringify([conflict.start_time, conflict.end_time, conflict.upper_altitude_m, conflict.bbox]);
}

function compareItems(a: ReviewItemDraft, b: ReviewItemDraft): number {
  return compareIds(a.kind, b.kind) || compareIds(a.authority, b.authority) || compareIds(a.zone_id ?? '', b.zone_id ?? '');
}
