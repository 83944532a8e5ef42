import type { FlightRequestStatus } from '@dfc/contracts';
import type { BBox } from '../geometry/flight-area.js';
import type { Band } from '../volumes/band.js';
import { boundsOfVolume, boxesMeet, shareTimeAndBand, type AirspaceVolume } from './airspace-volume.js';

/*
 * The reservation ledger (docs/architecture.md, "Deconfliction"): one
 * document per cell-hour lists the claims on it. A claim is written into
 * every cell-hour of its volume, in sorted order, each by one conditional
 * write that first checks the cell's other claims; the request document then
 * commits it. Whether a claim holds is always read from the request that made
 * it, never from the ledger: the ledger only makes sure that two claims on
 * the same airspace see each other.
 */

/**
 * A claim as a ledger cell lists it, one per volume of the request that
 * touches the cell: who claims, and the volume's summary — its window, its band
 * (in its own reference and, where it can be placed there, above mean sea
 * level: band.ts) and its box. Its exact area is the request's.
 */
export interface CellClaim extends Band {
  claim: string;
  request: string;
  operator: string;
  /** The volume's index in its request. */
  volume: number;
  start: Date;
  end: Date;
  bbox: BBox;
}

/**
 * A request's reservation, kept in the request: `claiming` while the claim is
 * written into the ledger, `held` once the request is Approved with it. A
 * final status clears it, which frees the airspace at once. An amendment of
 * an Approved request claims its new airspace as `next` while the held claim
 * keeps the old: the write that approves the amendment swaps them.
 */
export interface Deconfliction {
  claim: string;
  state: 'claiming' | 'held';
  at: Date;
  cells: string[];
  next?: { claim: string; at: Date } | null;
}

/** How long a claim may stay `claiming` before another claim may withdraw it (its writer is taken to have died). */
export const CLAIM_LEASE_MS = 15_000;

/**
 * The statuses in which a flight holds its airspace: what deconfliction checks every approval against. An approved
 * flight, one flying, and a suspended approval, which keeps it so that reinstating it never conflicts.
 */
export const AIRSPACE_HOLDING_STATUSES: readonly FlightRequestStatus[] = ['Approved', 'Activated', 'Suspended'];

export function holdsAirspace(status: string): boolean {
  return (AIRSPACE_HOLDING_STATUSES as readonly string[]).includes(status);
}

export type Holding = 'holds' | 'claiming' | 'stalled' | 'none';

/** What the request that made a claim says of it now. */
export function holdingOf(claim: CellClaim, holder: { status: string; deconfliction?: Deconfliction | null } | null, now: Date): Holding {
  const reservation = holder?.deconfliction;
  if (!holder || !reservation) return 'none';
  if (reservation.next?.claim === claim.claim) return leased(reservation.next.at, now);
  if (reservation.claim !== claim.claim) return 'none';
  if (reservation.state === 'held') return holdsAirspace(holder.status) ? 'holds' : 'none';
  return leased(reservation.at, now);
}

function leased(since: Date, now: Date): Holding {
  return now.getTime() - new Date(since).getTime() < CLAIM_LEASE_MS ? 'claiming' : 'stalled';
}

export function cellClaimOf(volume: AirspaceVolume, band: Band, claim: string, request: string): CellClaim {
  return {
    claim,
    request,
    operator: volume.operator_uuid,
    volume: volume.index,
    start: volume.start,
    end: volume.end,
    ...band,
    bbox: boundsOfVolume(volume),
  };
}

/** Another operator's claim whose window, band and box meet ours: its holder must be asked about it. */
export function mayConflict(theirs: CellClaim, ours: CellClaim): boolean {
  return theirs.claim !== ours.claim && theirs.operator !== ours.operator && shareTimeAndBand(theirs, ours) && boxesMeet(theirs.bbox, ours.bbox);
}
