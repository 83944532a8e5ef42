import { ConflictError } from '@dfc/kit/errors';
import { cellsOf, type AirspaceVolume } from '../../domain/deconfliction/airspace-volume.js';
import { cellClaimOf, holdingOf, mayConflict, type CellClaim } from '../../domain/deconfliction/reservation.js';
import { areasIntersect } from '../../domain/geometry/flight-area.js';
import type { FlightRequest } from '../../domain/flight-request/flight-request.js';
import type { ApprovedFlight } from '../../domain/screening/screen.js';
import { bandOf } from '../../domain/volumes/band.js';
import { volumesOf } from '../../domain/volumes/flight-volume.js';
import { NO_VERTICAL_MODEL } from '../../domain/zones/vertical.js';
import type { ReservationHolder } from '../../store/flight-request-store.js';
import type { UseCaseDeps } from '../deps.js';

/** Attempts at one cell before the claim gives up with a 409 (each lost attempt means another claim wrote it). */
const ATTEMPTS_PER_CELL = 25;

export type Reservation = { reserved: true; cells: string[] } | { reserved: false; conflicts: ApprovedFlight[] };

/** One of our volumes, as the cells it touches list it. */
interface OurClaim {
  volume: AirspaceVolume;
  listed: CellClaim;
  cells: Set<string>;
}

/**
 * Claims the airspace of the request's volumes for `request` under `claim`,
 * which the request already carries as `claiming`: cell-hour after cell-hour
 * in sorted order (the cells of all its volumes), each by one conditional
 * write made only when no other operator's claim in that cell holds or is
 * taking airspace one of our volumes there shares. On the first conflict the
 * cells taken so far are given back and the conflicting flights returned.
 * The caller commits the reservation by writing the request (the claim
 * `held`), conditional on the claim still being its own.
 */
export async function reserveAirspace(deps: UseCaseDeps, volumes: AirspaceVolume[], claim: string, request: string): Promise<Reservation> {
  const model = deps.rules.vertical ?? NO_VERTICAL_MODEL;
  const ours: OurClaim[] = volumes.map((volume) => ({
    volume,
    listed: cellClaimOf(volume, bandOf(volume.lower, volume.upper, volume.bbox, model), claim, request),
    cells: new Set(cellsOf(volume)),
  }));
  const cells = [...new Set(ours.flatMap((our) => [...our.cells]))].sort();
  const taken: string[] = [];
  for (const cell of cells) {
    const conflicts = await takeCell(
      deps,
      cell,
      claim,
      ours.filter((our) => our.cells.has(cell)),
    );
    if (conflicts.length > 0) {
      await releaseAirspace(deps, claim, taken);
      return { reserved: false, conflicts };
    }
    taken.push(cell);
  }
  return { reserved: true, cells };
}

/** Gives the claim's cells back. Only tidies: a claim its request no longer holds counts for nothing already. */
export async function releaseAirspace(deps: UseCaseDeps, claim: string, cells: readonly string[]): Promise<void> {
  for (const id of cells) {
    for (let attempt = 0; attempt < ATTEMPTS_PER_CELL; attempt++) {
      const done = await deps.airspace.exclusively(id, async () => {
        const cell = await deps.airspace.read(id);
        return (
          !cell.claims.some((listed) => listed.claim === claim) ||
          (await deps.airspace.write(
            cell,
            cell.claims.filter((listed) => listed.claim !== claim),
          ))
        );
      });
      if (done) break;
    }
  }
}

/** The volumes a request takes, one per band and window: its own, or its area from the ground to its ceiling over its window. */
export function volumeOf(
  request: Pick<FlightRequest, 'operator_uuid' | 'start_time' | 'end_time' | 'max_altitude' | 'geometry' | 'volumes'>,
): AirspaceVolume[] {
  return volumesOf(request).map((volume) => ({ ...volume, operator_uuid: request.operator_uuid }));
}

/** Adds our volumes' claims to one cell: the flights that stop it, or none once it is written. */
async function takeCell(deps: UseCaseDeps, id: string, claim: string, ours: OurClaim[]): Promise<ApprovedFlight[]> {
  for (let attempt = 0; attempt < ATTEMPTS_PER_CELL; attempt++) {
    const taken = await deps.airspace.exclusively(id, async () => {
      const cell = await deps.airspace.read(id);
      const meeting = cell.claims.flatMap((theirs) =>
        ours.filter((our) => mayConflict(theirs, our.listed)).map((our) => ({ theirs, ours: our.volume })),
      );
      const verdict = await judge(deps, meeting);
      if (verdict.conflicts.length > 0) return verdict.conflicts;
      if (verdict.undecided) return null;
      const kept = cell.claims.filter((listed) => !verdict.void.has(listed.claim) && listed.claim !== claim);
      return (await deps.airspace.write(cell, [...kept, ...ours.map((our) => our.listed)])) ? [] : null;
    });
    if (taken) return taken;
  }
  throw new ConflictError('The airspace of this flight is being reserved by others at the same time; try again.');
}

interface Verdict {
  conflicts: ApprovedFlight[];
  /** Claims that can never be committed: left out of the cell when it is written. */
  void: Set<string>;
  /** A stalled claim could not be withdrawn (its request changed meanwhile): read the cell again. */
  undecided: boolean;
}

/**
 * Asks the requests behind the claims that meet ours what their claims are
 * worth: one that holds, or is still being taken, conflicts when the areas of
 * the two volumes truly intersect; one stalled past its lease is withdrawn first.
 */
async function judge(deps: UseCaseDeps, meeting: Array<{ theirs: CellClaim; ours: AirspaceVolume }>): Promise<Verdict> {
  const verdict: Verdict = { conflicts: [], void: new Set(), undecided: false };
  if (meeting.length === 0) return verdict;
  const holders = await deps.requests.holders([...new Set(meeting.map(({ theirs }) => theirs.request))]);
  const now = deps.now();
  const withdrawn = new Map<string, boolean>();
  for (const { theirs, ours } of meeting) {
    const holder = holders.get(theirs.request) ?? null;
    const holding = holdingOf(theirs, holder, now);
    if (holding === 'none' || !holder) {
      verdict.void.add(theirs.claim);
      continue;
    }
    const theirVolume = volumesOf(sourceOf(holder))[theirs.volume];
    if (theirVolume && !areasIntersect(ours.polygons, theirVolume.polygons)) continue;
    if (holding === 'stalled') {
      const gone = withdrawn.get(theirs.claim) ?? (await deps.requests.withdrawClaim(holder));
      withdrawn.set(theirs.claim, gone);
      if (gone) verdict.void.add(theirs.claim);
      else verdict.undecided = true;
    } else if (!verdict.conflicts.some((flight) => flight.uuid === holder._id)) {
      verdict.conflicts.push(flightOf(holder));
    }
  }
  return verdict;
}

function sourceOf(holder: ReservationHolder) {
  return { ...holder, geometry: { polygons: holder.polygons } };
}

function flightOf(holder: ReservationHolder): ApprovedFlight {
  return {
    uuid: holder._id,
    operator_uuid: holder.operator_uuid,
    start: holder.start_time,
    end: holder.end_time,
    max_altitude: holder.max_altitude,
    polygons: holder.polygons,
    volumes: volumesOf(sourceOf(holder)),
  };
}
