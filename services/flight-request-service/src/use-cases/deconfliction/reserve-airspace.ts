import { ConflictError } from '@dfc/kit/errors';
import { cellsOf, type AirspaceVolume, type LedgerCell } from '../../domain/deconfliction/airspace-volume.js';
import { cellClaimOf, holdingOf, mayConflict, type CellClaim } from '../../domain/deconfliction/reservation.js';
import { areasIntersect } from '../../domain/geometry/flight-area.js';
import type { FlightRequest } from '../../domain/flight-request/flight-request.js';
import type { ApprovedFlight } from '../../domain/screening/screen.js';
import type { ReservationHolder } from '../../store/flight-request-store.js';
import type { UseCaseDeps } from '../deps.js';

/** Attempts at one cell before the claim gives up with a 409 (each lost attempt means another claim wrote it). */
const ATTEMPTS_PER_CELL = 25;

export type Reservation = { reserved: true; cells: string[] } | { reserved: false; conflicts: ApprovedFlight[] };

/**
 * Claims the volume's airspace for `request` under `claim`, which the request
 * already carries as `claiming`: cell-hour after cell-hour in sorted order,
 * each by one conditional write made only when no other operator's claim in
 * that cell holds or is taking the same airspace. On the first conflict the
 * claim is withdrawn from every cell and the conflicting flights returned.
 * The caller commits the reservation by writing the request (the claim
 * `held`), conditional on the claim still being its own.
 */
export async function reserveAirspace(deps: UseCaseDeps, volume: AirspaceVolume, claim: string, request: string): Promise<Reservation> {
  const ours = cellClaimOf(volume, claim, request);
  const cells = cellsOf(volume);
  for (const cell of cells) {
    const conflicts = await takeCell(deps, cell, ours, volume).catch(async (error: unknown) => {
      await releaseAirspace(deps, claim);
      throw error;
    });
    if (conflicts.length > 0) {
      await releaseAirspace(deps, claim);
      return { reserved: false, conflicts };
    }
  }
  return { reserved: true, cells: cells.map((cell) => cell.id) };
}

/** Takes the claim out of the ledger. Only tidies: a claim its request no longer holds counts for nothing already. */
export async function releaseAirspace(deps: UseCaseDeps, claim: string): Promise<void> {
  await deps.airspace.withdraw([claim]);
}

/**
 * The flights of other operators that hold airspace meeting the volume's
 * window, band and bounding box, one each, ordered by uuid: the claims the
 * volume's cells list, each confirmed by its request. Only index-served
 * reads by key, however many flights the neighbourhood holds.
 */
export async function flightsHolding(deps: UseCaseDeps, volume: AirspaceVolume): Promise<ApprovedFlight[]> {
  const ours = cellClaimOf(volume, '', '');
  const cells = await Promise.all(cellsOf(volume).map((cell) => deps.airspace.read(cell)));
  const meeting = cells.flatMap((cell) => cell.claims).filter((theirs) => mayConflict(theirs, ours));
  if (meeting.length === 0) return [];
  const holders = await deps.requests.holders([...new Set(meeting.map((claim) => claim.request))]);
  const now = deps.now();
  const flights = new Map<string, ApprovedFlight>();
  for (const claim of meeting) {
    const holder = holders.get(claim.request);
    if (holder && holdingOf(claim, holder, now) === 'holds') flights.set(holder._id, flightOf(claim, holder));
  }
  return [...flights.values()].sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
}

/** The volume a request takes: its area from the ground to its ceiling, over its window. */
export function volumeOf(
  request: Pick<FlightRequest, 'operator_uuid' | 'start_time' | 'end_time' | 'max_altitude'> & {
    geometry: Pick<FlightRequest['geometry'], 'polygons'>;
  },
): AirspaceVolume {
  return {
    operator_uuid: request.operator_uuid,
    start: request.start_time,
    end: request.end_time,
    lower_m: 0,
    upper_m: request.max_altitude,
    polygons: request.geometry.polygons,
  };
}

/** Adds our claim to one cell: the flights that stop it, or none once it is written. */
async function takeCell(deps: UseCaseDeps, place: LedgerCell, ours: CellClaim, volume: AirspaceVolume): Promise<ApprovedFlight[]> {
  for (let attempt = 0; attempt < ATTEMPTS_PER_CELL; attempt++) {
    const taken = await deps.airspace.exclusively(place.id, async () => {
      const cell = await deps.airspace.read(place);
      const meeting = cell.claims.filter((theirs) => mayConflict(theirs, ours));
      const verdict = await judge(deps, meeting, volume);
      if (verdict.conflicts.length > 0) return verdict.conflicts;
      if (verdict.undecided) return null;
      await deps.airspace.withdraw([...verdict.void]);
      return (await deps.airspace.write(cell, ours)) ? [] : null;
    });
    if (taken) return taken;
  }
  throw new ConflictError('The airspace of this flight is being reserved by others at the same time; try again.');
}

interface Verdict {
  conflicts: ApprovedFlight[];
  /** Claims that can never be committed: withdrawn from the ledger before ours is written. */
  void: Set<string>;
  /** A stalled claim could not be withdrawn (its request changed meanwhile): read the cell again. */
  undecided: boolean;
}

/**
 * Asks the requests behind the claims that meet ours what their claims are
 * worth: one that holds, or is still being taken, conflicts when the areas
 * truly intersect; one stalled past its lease is withdrawn first.
 */
async function judge(deps: UseCaseDeps, meeting: CellClaim[], volume: AirspaceVolume): Promise<Verdict> {
  const verdict: Verdict = { conflicts: [], void: new Set(), undecided: false };
  if (meeting.length === 0) return verdict;
  const holders = await deps.requests.holders([...new Set(meeting.map((claim) => claim.request))]);
  const now = deps.now();
  for (const claim of meeting) {
    const holder = holders.get(claim.request) ?? null;
    const holding = holdingOf(claim, holder, now);
    if (holding === 'none' || !holder) {
      verdict.void.add(claim.claim);
    } else if (!areasIntersect(volume.polygons, holder.polygons)) {
      continue;
    } else if (holding === 'stalled') {
      if (await deps.requests.withdrawClaim(holder)) verdict.void.add(claim.claim);
      else verdict.undecided = true;
    } else {
      verdict.conflicts.push(flightOf(claim, holder));
    }
  }
  return verdict;
}

function flightOf(claim: CellClaim, holder: ReservationHolder): ApprovedFlight {
  return {
    uuid: holder._id,
    operator_uuid: holder.operator_uuid,
    start: claim.start,
    end: claim.end,
    max_altitude: claim.upper_m,
    polygons: holder.polygons,
  };
}
