import { randomUUID } from 'node:crypto';
import { bbox } from '@turf/bbox';
import { isLive, rescreen, screenedAlready } from '../domain/flight-request/changes.js';
import type { FlightRequest, ZoneScreening } from '../domain/flight-request/flight-request.js';
import type { FlightRequestStatus } from '@dfc/contracts';
import type { ZoneChanged } from '../domain/events/zone-events.js';
import { liftAgainstZone, rescreenAgainstZone, type ZoneRescreening } from '../domain/rescreening/zone-rescreening.js';
import { applicabilityBounds } from '../domain/zones/applicability.js';
import type { GeoZone } from '../domain/zones/geo-zone.js';
import type { RescreeningCandidate } from '../store/flight-request-store.js';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import { releaseAirspace } from './deconfliction/reserve-airspace.js';
import type { UseCaseDeps } from './deps.js';

/** Requests changed at once: enough to overlap the database round trips, few enough to leave room for live traffic. */
const CONCURRENCY = 8;

export interface RescreeningSummary {
  candidates: number;
  rescinded: number;
  rejected: number;
  reviewed: number;
  suspended: number;
  reinstated: number;
  noticed: number;
}

/**
 * A zone was created, changed or lifted (zone.changed, one replica per event):
 * every live request (`LIVE_STATUSES`) whose window has not ended and that the
 * zone may touch is screened again against it, and so is every request it
 * suspended. An approval the zone now prohibits is Rescinded, a pending
 * request it prohibits is Rejected, a pending one it sends to another
 * authority gains that review item, an approval it sends to another authority
 * is Suspended with that item, and what it suspended is reinstated once it no
 * longer needs its authority (deleted, retired, or changed). Every new finding
 * is a restriction notice to the operator. Each request records the zone
 * version it was screened against, so a redelivered event changes nothing.
 */
export async function rescreenForZone(
  deps: UseCaseDeps,
  zoneId: string,
  action: ZoneChanged['action'],
  requestId?: string,
): Promise<RescreeningSummary> {
  const summary: RescreeningSummary = { candidates: 0, rescinded: 0, rejected: 0, reviewed: 0, suspended: 0, reinstated: 0, noticed: 0 };
  const found = await deps.zones.findVersion(zoneId);
  if (!found) return summary;
  const { zone, version, live } = found;
  const screening: ZoneScreening = { zone_id: zone.id, version };
  const now = deps.now();
  // A zone just created can have suspended nothing yet; one deleted can meet nothing new.
  const [meeting, suspended] = await Promise.all([
    live ? deps.requests.liveOverlapping(zoneBox(zone), laterOf(now, scheduleStart(zone)), scheduleEnd(zone)) : [],
    action === 'created' ? [] : deps.requests.suspendedBy(zone.id),
  ]);
  const candidates = [...new Map([...meeting, ...suspended].map((candidate) => [candidate._id, candidate])).values()];
  summary.candidates = candidates.length;
  const exemptions = live
    ? await ctrExemptions(
        deps,
        candidates.map((candidate) => candidate.operator_uuid),
      )
    : new Map<string, boolean>();

  const outcomeFor = (request: RescreeningCandidate | FlightRequest) =>
    live
      ? rescreenAgainstZone(request, zone, { exemption_for_ctr: exemptions.get(request.operator_uuid) ?? false }, deps.rules)
      : liftAgainstZone(request, zone);
  // Screened in memory first: only the requests the zone really changes go through the write path.
  const affected = candidates.filter((candidate) => !screenedAlready(candidate, screening) && outcomeFor(candidate).effect !== 'none');
  const rescreenOne = async (uuid: string): Promise<Rescreened> => {
    let done: Rescreened = { effect: 'none', notices: 0 };
    let held: Deconfliction | null = null;
    const after = await deps.requests.change(uuid, (current) => {
      if (!isLive(current, now)) return null;
      const outcome = outcomeFor(current);
      const change = rescreen(current, outcome, { zone, version }, screening, { at: deps.now(), newItemId: randomUUID, requestId });
      const notices = outcome.effect === 'none' ? 0 : outcome.findings.length;
      const status = change?.set.status !== current.status ? change?.set.status : undefined;
      done = change ? { effect: outcome.effect, notices, status } : { effect: 'none', notices: 0 };
      held = current.deconfliction ?? null;
      return change;
    });
    const freed = held as Deconfliction | null;
    if (freed && !after.deconfliction) await releaseAirspace(deps, freed.claim);
    return done;
  };
  for (let start = 0; start < affected.length; start += CONCURRENCY) {
    const outcomes = await Promise.all(affected.slice(start, start + CONCURRENCY).map((candidate) => rescreenOne(candidate._id)));
    for (const outcome of outcomes) count(deps, summary, outcome);
  }
  return summary;
}

interface Rescreened {
  effect: ZoneRescreening['effect'];
  notices: number;
  /** The status the change set, when it set one. */
  status?: FlightRequestStatus | undefined;
}

function count(deps: UseCaseDeps, summary: RescreeningSummary, { effect, notices, status }: Rescreened): void {
  summary.noticed += notices;
  if (effect === 'rescind') summary.rescinded += 1;
  if (effect === 'reject') summary.rejected += 1;
  if (effect === 'review') summary.reviewed += 1;
  if (effect === 'suspend' && status === 'Suspended') summary.suspended += 1;
  if (effect === 'lift' && status === 'Approved') summary.reinstated += 1;
  if (status && status !== 'Pending') deps.metrics.requestsByStatus.inc({ status });
}

/** The CTR exemption of each operator named (screening needs it; the projection is read once per operator). */
async function ctrExemptions(deps: UseCaseDeps, operatorUuids: string[]): Promise<Map<string, boolean>> {
  const unique = [...new Set(operatorUuids)];
  const operators = await Promise.all(unique.map((uuid) => deps.operators.find(uuid)));
  return new Map(unique.map((uuid, index) => [uuid, operators[index]?.exemption_for_ctr ?? false]));
}

function zoneBox(zone: GeoZone): [number, number, number, number] {
  const [west = 0, south = 0, east = 0, north = 0] = bbox(zone.geometry);
  return [west, south, east, north];
}

/** A zone applies only between its earliest start and its latest end (null: open); the exact intervals are screening's. */
function scheduleStart(zone: GeoZone): Date | null {
  const { start } = applicabilityBounds(zone.applicability);
  return start === null ? null : new Date(start);
}

function scheduleEnd(zone: GeoZone): Date | null {
  const { end } = applicabilityBounds(zone.applicability);
  return end === null ? null : new Date(end);
}

function laterOf(a: Date, b: Date | null): Date {
  return b && b.getTime() > a.getTime() ? b : a;
}
