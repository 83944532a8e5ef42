import { heightAboveGround } from '../volumes/band.js';
import type { FlightVolume } from '../volumes/flight-volume.js';
import type { GeoZone } from '../zones/geo-zone.js';
import { NO_VERTICAL_MODEL } from '../zones/vertical.js';
import { compareIds } from '../zones/zone-index.js';
import { deconflictionFindings, deconflictionItem, inputVolumes, volumeConflicts } from './deconfliction.js';
import type { Finding, ReviewItemDraft, ScreeningInput, ScreeningRules } from './types.js';
import { zoneMeeting, zoneOutcome, type ZoneMeeting } from './zone-rules.js';

/*
 * Automatic screening of a submission (PRODUCT.md "Review"): pure and
 * deterministic, every finding explained. Each of the flight's volumes is
 * screened on its own, and only what really intersects counts: its area (true
 * polygon intersection), its band against each zone volume's limits in their
 * references, and its window against the zone's active intervals. A request
 * without volumes is one, [0, max_altitude] AGL over its area and window;
 * findings of a request with volumes name the volume.
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
  const volumes = inputVolumes(input);
  const named = input.volumes !== undefined;

  for (const { zone, meetings } of relevantZones(input, volumes)) {
    let item: ReviewItemDraft | null = null;
    for (const { volume, meeting } of meetings) {
      const outcome = zoneOutcome(zone, { maxAltitudeM: Math.ceil(heightOf(volume, input)), operator: input.operator }, meeting);
      if (outcome.finding) findings.push(named ? aboutVolume(outcome.finding, volume) : outcome.finding);
      item ??= outcome.item;
    }
    if (item) items.push(item);
  }

  const altitude = altitudeReview(input, volumes, named);
  if (altitude) {
    findings.push(...altitude.findings);
    items.push(altitude.item);
  }

  const conflicts = volumeConflicts(volumes, input.operatorUuid, input.approvedFlights, input.rules.vertical);
  if (conflicts.length > 0) {
    findings.push(...deconflictionFindings(conflicts, input));
    items.push(deconflictionItem([...new Set(conflicts.map((conflict) => conflict.flight))], input.rules));
  }

  findings.sort(compareFindings);
  items.sort(compareItems);
  // A prohibited zone ends it: there is nothing left for a reviewer to decide.
  if (findings.some((finding) => finding.code === 'ZONE_PROHIBITED')) {
    return { outcome: 'Rejected', findings, items: [] };
  }
  return { outcome: items.length > 0 ? 'Pending' : 'Approved', findings, items };
}

/** The greatest height above the ground the volume reaches: max_altitude for a request without volumes. */
function heightOf(volume: FlightVolume, input: ScreeningInput): number {
  return heightAboveGround(volume.upper, volume.bbox, input.rules.vertical ?? NO_VERTICAL_MODEL);
}

function aboutVolume(finding: Finding, volume: FlightVolume): Finding {
  return { ...finding, message: `Volume ${volume.index}: ${finding.message}`, volume: volume.index };
}

/** Candidate zones that a volume meets in time, area and height (zone-rules.ts), each zone once with the volumes that meet it. */
function relevantZones(
  input: ScreeningInput,
  volumes: FlightVolume[],
): Array<{ zone: GeoZone; meetings: Array<{ volume: FlightVolume; meeting: ZoneMeeting }> }> {
  const unique = new Map(input.zones.map((zone) => [zone.id, zone]));
  return [...unique.values()].flatMap((zone) => {
    const meetings = volumes.flatMap((volume) => {
      const meeting = zoneMeeting(zone, { ...volume, maxAltitudeM: input.maxAltitudeM, rules: input.rules });
      return meeting ? [{ volume, meeting }] : [];
    });
    return meetings.length > 0 ? [{ zone, meetings }] : [];
  });
}

function altitudeReview(input: ScreeningInput, volumes: FlightVolume[], named: boolean): { findings: Finding[]; item: ReviewItemDraft } | null {
  const { rules } = input;
  const authority = rules.nationalAuthority;
  const findings = volumes.flatMap((volume): Finding[] => {
    const height = named ? Math.ceil(heightOf(volume, input)) : input.maxAltitudeM;
    if (height <= rules.altitudeReviewAboveM) return [];
    const message = named
      ? `Volume ${volume.index} reaches ${height} m above the ground, above ${rules.altitudeReviewAboveM} m: the ${authority} authority must authorise it.`
      : `The max altitude of ${height} m is above ${rules.altitudeReviewAboveM} m: ` + `the ${authority} authority must authorise it.`;
    const finding: Finding = { code: 'ALTITUDE_ABOVE_LIMIT', message, zone_id: null, zone_name: null, authority };
    return [named ? { ...finding, volume: volume.index } : finding];
  });
  const [first] = findings;
  if (!first) return null;
  return { findings, item: { kind: 'altitude', authority, zone_id: null, finding_codes: ['ALTITUDE_ABOVE_LIMIT'], message: first.message } };
}

function compareFindings(a: Finding, b: Finding): number {
  return (
    compareIds(a.code, b.code) ||
    compareIds(a.zone_id ?? '', b.zone_id ?? '') ||
    (a.volume ?? 0) - (b.volume ?? 0) ||
    compareIds(conflictKey(a), conflictKey(b))
  );
}

/** Conflicts sort by their window, then their band and area, so equal input gives equal output. */
function conflictKey(finding: Finding): string {
  const conflict = finding.conflict;
  return conflict === undefined ? '' : JSON.stringify([conflict.start_time, conflict.end_time, conflict.upper_altitude_m, conflict.bbox]);
}

function compareItems(a: ReviewItemDraft, b: ReviewItemDraft): number {
  return compareIds(a.kind, b.kind) || compareIds(a.authority, b.authority) || compareIds(a.zone_id ?? '', b.zone_id ?? '');
}
