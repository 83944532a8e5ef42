import { randomUUID } from 'node:crypto';
import { bbox } from '@turf/bbox';
import { isLive, rescreen, screenedAlready } from '../domain/flight-request/changes.js';
import type { FlightRequest, ZoneScreening } from '../domain/flight-request/flight-request.js';
import { rescreenAgainstZone, type ZoneRescreening } from '../domain/rescreening/zone-rescreening.js';
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
}

/**
 * A zone was created or changed (zone.changed, one replica per event): every
 * Approved or Pending request whose window has not ended and that the zone may
 * touch is screened again against it. An approval the zone now prohibits is
 * Rescinded, a pending request it prohibits is Rejected, and a pending one it
 * sends to another authority gains that review item. Each request records the
 * zone version it was screened against, so a redelivered event changes nothing.
 */
export async function rescreenForZone(deps: UseCaseDeps, zoneId: string, requestId?: string): Promise<RescreeningSummary> {
  const summary: RescreeningSummary = { candidates: 0, rescinded: 0, rejected: 0, reviewed: 0 };
  const found = await deps.zones.findLiveVersion(zoneId);
  if (!found) return summary;
  const { zone, version } = found;
  const screening: ZoneScreening = { zone_id: zone.id, version };
  const now = deps.now();
  const candidates = await deps.requests.liveOverlapping(zoneBox(zone), laterOf(now, scheduleStart(zone)), scheduleEnd(zone));
  summary.candidates = candidates.length;
  const exemptions = await ctrExemptions(
    deps,
    candidates.map((candidate) => candidate.operator_uuid),
  );

  const outcomeFor = (request: RescreeningCandidate | FlightRequest) =>
    rescreenAgainstZone(request, zone, { exemption_for_ctr: exemptions.get(request.operator_uuid) ?? false }, deps.rules);
  // Screened in memory first: only the requests the zone really changes go through the write path.
  const affected = candidates.filter((candidate) => !screenedAlready(candidate, screening) && outcomeFor(candidate).effect !== 'none');
  const rescreenOne = async (uuid: string): Promise<ZoneRescreening['effect']> => {
    let effect: ZoneRescreening['effect'] = 'none';
    let held: Deconfliction | null = null;
    const after = await deps.requests.change(uuid, (current) => {
      if (!isLive(current, now)) return null;
      const outcome = outcomeFor(current);
      const change = rescreen(current, outcome, zone, screening, { at: deps.now(), newItemId: randomUUID, requestId });
      effect = change ? outcome.effect : 'none';
      held = current.deconfliction ?? null;
      return change;
    });
    const freed = held as Deconfliction | null;
    if (freed && !after.deconfliction) await releaseAirspace(deps, freed.claim);
    return effect;
  };
  for (let start = 0; start < affected.length; start += CONCURRENCY) {
    const effects = await Promise.all(affected.slice(start, start + CONCURRENCY).map((candidate) => rescreenOne(candidate._id)));
    for (const effect of effects) count(deps, summary, effect);
  }
  return summary;
}

function count(deps: UseCaseDeps, summary: RescreeningSummary, effect: ZoneRescreening['effect']): void {
  if (effect === 'rescind') summary.rescinded += 1;
  if (effect === 'reject') summary.rejected += 1;
  if (effect === 'review') summary.reviewed += 1;
  if (effect === 'rescind' || effect === 'reject') deps.metrics.requestsByStatus.inc({ status: effect === 'rescind' ? 'Rescinded' : 'Rejected' });
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
