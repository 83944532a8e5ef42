import { ConflictError } from '@dfc/kit/errors';
import { cellsOf, type AirspaceVolume, type LedgerCell } from '../../domain/deconfliction/airspace-volume.js';
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

/** One of our volumes, as the cells it touches list it, with whether it is at home in each. */
interface OurClaim {
  volume: AirspaceVolume;
  listed: CellClaim;
  cells: Map<string, boolean>;
}

/**
 * Claims the airspace of the request's volumes for `request` under `claim`,
 * which the request already carries as `claiming`: cell-hour after cell-hour
 * in sorted order (the cells of all its volumes), each by one conditional
 * write made only when no other operator's claim in that cell holds or is
 * taking airspace one of our volumes there shares. On the first conflict the
 * claim is withdrawn from every cell and the conflicting flights returned.
 * The caller commits the reservation by writing the request (the claim
 * `held`), conditional on the claim still being its own.
 */
export async function reserveAirspace(deps: UseCaseDeps, volumes: AirspaceVolume[], claim: string, request: string): Promise<Reservation> {
  const model = deps.rules.vertical ?? NO_VERTICAL_MODEL;
  const ours: OurClaim[] = volumes.map((volume) => ({
    volume,
    listed: cellClaimOf(volume, bandOf(volume.lower, volume.upper, volume.bbox, model), claim, request),
    cells: new Map(cellsOf(volume).map((cell) => [cell.id, cell.own])),
  }));
  // A cell where any of our volumes is at home is read as its home reads it: the others judge more claims, never fewer.
  const places = new Map<string, boolean>();
  for (const our of ours) for (const [id, own] of our.cells) places.set(id, (places.get(id) ?? false) || own);
  const cells: LedgerCell[] = [...places].map(([id, own]) => ({ id, own })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const cell of cells) {
    const here = ours.filter((our) => our.cells.has(cell.id));
    const conflicts = await takeCell(deps, cell, here).catch(async (error: unknown) => {
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
 * The flights of other operators that hold airspace meeting one of the
 * volumes' window, band and bounding box, one each, ordered by uuid: the
 * claims the volumes' cells list, each confirmed by its request (a claim
 * its request no longer names is withdrawn on the way). Only index-served
 * reads by key, however many flights the neighbourhood holds.
 */
export async function flightsHolding(deps: UseCaseDeps, volumes: AirspaceVolume[]): Promise<ApprovedFlight[]> {
  const model = deps.rules.vertical ?? NO_VERTICAL_MODEL;
  const flights = new Map<string, ApprovedFlight>();
  for (const volume of volumes) {
    const ours = cellClaimOf(volume, bandOf(volume.lower, volume.upper, volume.bbox, model), '', '');
    const cells = await Promise.all(cellsOf(volume).map((cell) => deps.airspace.read(cell)));
    const meeting = cells.flatMap((cell) => cell.claims).filter((theirs) => mayConflict(theirs, ours));
    if (meeting.length === 0) continue;
    const holders = await deps.requests.holders([...new Set(meeting.map((claim) => claim.request))]);
    const now = deps.now();
    const gone: string[] = [];
    for (const claim of meeting) {
      const holder = holders.get(claim.request) ?? null;
      const holding = holdingOf(claim, holder, now);
      if (holder && holding === 'holds') flights.set(holder._id, flightOf(holder));
      else if (holding === 'none') gone.push(claim.claim);
    }
    if (gone.length > 0) await deps.airspace.withdraw(gone);
  }
  return [...flights.values()].sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
}

/** The volumes a request takes, one per band and window: its own, or its area from the ground to its ceiling over its window. */
export function volumeOf(
  request: Pick<FlightRequest, 'operator_uuid' | 'start_time' | 'end_time' | 'max_altitude' | 'volumes'> & {
    geometry: Pick<FlightRequest['geometry'], 'polygons'>;
  },
): AirspaceVolume[] {
  return volumesOf(request).map((volume) => ({ ...volume, operator_uuid: request.operator_uuid }));
}

/** Adds our volumes' claims to one cell: the flights that stop it, or none once they are written. */
async function takeCell(deps: UseCaseDeps, place: LedgerCell, ours: OurClaim[]): Promise<ApprovedFlight[]> {
  for (let attempt = 0; attempt < ATTEMPTS_PER_CELL; attempt++) {
    const taken = await deps.airspace.exclusively(place.id, async () => {
      const cell = await deps.airspace.read(place);
      const meeting = cell.claims.flatMap((theirs) =>
        ours.filter((our) => mayConflict(theirs, our.listed)).map((our) => ({ theirs, ours: our.volume })),
      );
      const verdict = await judge(deps, meeting);
      if (verdict.conflicts.length > 0) return verdict.conflicts;
      if (verdict.undecided) return null;
      await deps.airspace.withdraw([...verdict.void]);
      const written = ours.map((our) => ({ claim: our.listed, own: our.cells.get(place.id) ?? false }));
      return (await deps.airspace.write(cell, written)) ? [] : null;
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
    // An amendment's new volumes are stored only when it commits: until then its claim is judged by its box alone.
    const amending = holder.deconfliction?.next?.claim === theirs.claim;
    const theirVolume = amending ? undefined : volumesOf(sourceOf(holder))[theirs.volume];
    if (theirVolume && !areasIntersect(ours.polygons, theirVolume.polygons)) continue;
    if (holding === 'stalled') {
      const gone = withdrawn.get(theirs.claim) ?? (await deps.requests.withdrawClaim(holder, theirs.claim));
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
