import type { FlightRequestGeometry, Suspension } from '../flight-request/flight-request.js';
import type { BBox } from '../geometry/flight-area.js';
import type { ReviewItem } from '../review/review-group.js';
import { screen, type Finding, type ReviewItemDraft, type ScreeningRules } from '../screening/screen.js';
import type { FlightRequestStatus } from '@dfc/contracts';
import type { GeoZone } from '../zones/geo-zone.js';
import { volumesOf, type StoredVolume } from '../volumes/flight-volume.js';

/*
 * A zone created or changed after a request was screened: what it means for
 * that request now. Only this zone is screened again (with the same rules as a
 * submission: area, altitude band, schedule, CTR exemption; each volume of a
 * request with volumes on its own); what screening found before stays as it was.
 */

export interface ScreenedRequest {
  status: FlightRequestStatus;
  start_time: Date;
  end_time: Date;
  max_altitude: number;
  operator_uuid: string;
  area: { bbox: number[] };
  geometry: Pick<FlightRequestGeometry, 'polygons'>;
  /** Its volumes when it was submitted with them: each is screened, as at submission, and findings name it. */
  volumes?: StoredVolume[] | null;
  review: { findings: Finding[]; items: ReviewItem[] };
  suspension?: Pick<Suspension, 'zone_ids'> | null;
}

/** Every effect but `none` names the findings the request did not have: each is the subject of a restriction notice. */
export type ZoneRescreening =
  /** The zone does not touch the flight, or adds nothing new. */
  | { effect: 'none' }
  /** An Approved (or Suspended) flight now enters a prohibited zone: its approval is withdrawn. */
  | { effect: 'rescind'; finding: Finding; findings: Finding[] }
  /** A Pending flight now enters a prohibited zone: nothing is left to review. */
  | { effect: 'reject'; finding: Finding; findings: Finding[] }
  /** A Pending flight now needs the zone's authority too (or has a new finding to show). */
  | { effect: 'review'; findings: Finding[]; items: ReviewItemDraft[] }
  /** An Approved (or Suspended) flight now needs the zone's authority: back under its review until it decides. */
  | { effect: 'suspend'; findings: Finding[]; items: ReviewItemDraft[] }
  /** An Approved (or Suspended) flight meets a new condition that needs nobody's decision: its operator is told. */
  | { effect: 'notice'; findings: Finding[] }
  /** The zone that suspended the flight no longer needs its authority's decision (deleted, retired or changed). */
  | { effect: 'lift'; findings: Finding[] };

export function rescreenAgainstZone(
  request: ScreenedRequest,
  zone: GeoZone,
  operator: { exemption_for_ctr: boolean },
  rules: ScreeningRules,
): ZoneRescreening {
  const [west = 0, south = 0, east = 0, north = 0] = request.area.bbox;
  const result = screen({
    polygons: request.geometry.polygons,
    bbox: [west, south, east, north] as BBox,
    start: request.start_time,
    end: request.end_time,
    maxAltitudeM: request.max_altitude,
    ...(request.volumes && request.volumes.length > 0 ? { volumes: volumesOf(request) } : {}),
    operatorUuid: request.operator_uuid,
    operator,
    zones: [zone],
    approvedFlights: [],
    rules,
  });
  const findings = result.findings.filter((finding) => finding.zone_id === zone.id && !known(request.review.findings, finding));
  // A flight in the air is told, not grounded by a write: its operator and pilot decide how to leave the zone.
  if (request.status === 'Activated') return findings.length > 0 ? { effect: 'notice', findings } : { effect: 'none' };
  const prohibited = findings.find((finding) => finding.code === 'ZONE_PROHIBITED');
  if (prohibited) return { effect: request.status === 'Pending' ? 'reject' : 'rescind', finding: prohibited, findings };
  const items = result.items.filter((item) => item.zone_id === zone.id && !opened(request.review.items, item));
  if (request.status === 'Pending') return findings.length > 0 || items.length > 0 ? { effect: 'review', findings, items } : { effect: 'none' };
  if (items.length > 0) return { effect: 'suspend', findings, items };
  const stillNeeded = result.items.some((item) => item.zone_id === zone.id);
  if (suspendedBy(request, zone.id) && !stillNeeded) return { effect: 'lift', findings };
  return findings.length > 0 ? { effect: 'notice', findings } : { effect: 'none' };
}

/** A zone deleted or retired: it restricts nothing any more, so what it suspended is lifted. */
export function liftAgainstZone(request: ScreenedRequest, zone: Pick<GeoZone, 'id'>): ZoneRescreening {
  return suspendedBy(request, zone.id) ? { effect: 'lift', findings: [] } : { effect: 'none' };
}

function suspendedBy(request: ScreenedRequest, zoneId: string): boolean {
  return request.status === 'Suspended' && (request.suspension?.zone_ids ?? []).includes(zoneId);
}

function known(findings: Finding[], candidate: Finding): boolean {
  return findings.some(
    (finding) => finding.code === candidate.code && finding.zone_id === candidate.zone_id && finding.message === candidate.message,
  );
}

/** An item of the same kind, authority and zone, whatever its state: the authority has it already. */
function opened(items: ReviewItem[], draft: ReviewItemDraft): boolean {
  return items.some((item) => item.kind === draft.kind && item.authority === draft.authority && item.zone_id === draft.zone_id);
}
