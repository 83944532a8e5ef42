import { acrossProcesses, driverCollection, isDuplicateKey, serialisedPerDocument } from '@dfc/kit/db';
import type { LedgerCell } from '../domain/deconfliction/airspace-volume.js';
import type { CellClaim } from '../domain/deconfliction/reservation.js';
import type { AirspaceCellModel, CellClaimModel, StoredAirspaceCell, StoredCellClaim } from './airspace-ledger-model.js';

/** A ledger cell as a claim writing into it reads it: the claims it must judge, and the version its write is conditional on (null: no document yet). */
export interface AirspaceCell {
  id: string;
  own: boolean;
  version: number | null;
  claims: CellClaim[];
}

/**
 * The reservation ledger: per cell-hour a version document, and each claim
 * written into the cell as a document of its own. A claim is written into a
 * cell by inserting its document and then raising the cell's version,
 * conditionally on the version read before the cell's claims were read:
 * of two claims that read the same version, one raise fails and its writer
 * reads the cell again, the other's claim now among the claims. Atomic
 * across processes on every engine; a cell that does not exist yet is created
 * by an insert that its unique `_id` makes the only one.
 */
export class AirspaceLedgerStore {
  constructor(
    private readonly cells: AirspaceCellModel,
    private readonly claims: CellClaimModel,
  ) {}

  /**
   * Runs `work` (a read, a decision, a write of cell `id`) after every other
   * such work on the same cell in this process: claims made by one replica
   * queue up instead of racing each other; across replicas the conditional
   * write still decides.
   */
  exclusively<T>(id: string, work: () => Promise<T>): Promise<T> {
    return serialisedPerDocument(this.cells.collection.name, id, work);
  }

  /** The version first, then the claims: a claim written after this read raises the version, so the write that follows fails. */
  async read(cell: LedgerCell): Promise<AirspaceCell> {
    const stored = await this.cellCollection.findOne({ _id: cell.id });
    const keys = cell.own ? [`own:${cell.id}`, `in:${cell.id}`] : [`own:${cell.id}`];
    const claims = (await Promise.all(keys.map((key) => this.claimCollection.find({ key }).toArray()))).flat();
    return { ...cell, version: stored?.version ?? null, claims: claims.map(toClaim) };
  }

  /** Whether `claim` is now written into the cell: false when another claim was written since the cell was read. Call it inside `exclusively`. */
  async write(cell: AirspaceCell, claim: CellClaim): Promise<boolean> {
    const stored = toStored(claim, cell);
    await this.claimCollection.replaceOne({ _id: stored._id }, stored, { upsert: true });
    if (cell.version === null) {
      try {
        await this.cellCollection.insertOne({ _id: cell.id, version: 1 });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    }
    const version = cell.version;
    const written = await acrossProcesses(this.cells.db, this.cells.collection.name, cell.id, version, async () => {
      const result = await this.cellCollection.updateOne({ _id: cell.id, version }, { $inc: { version: 1 } });
      return result.matchedCount === 1 ? true : null;
    });
    return written === true;
  }

  /**
   * Removes every document of the claims: they reserve nothing any more (a
   * claim counts only while its request holds it). One equality each, which
   * every engine serves from the index.
   */
  async withdraw(claims: readonly string[]): Promise<void> {
    await Promise.all([...new Set(claims)].map((claim) => this.claimCollection.deleteMany({ claim })));
  }

  private get cellCollection() {
    return driverCollection<StoredAirspaceCell>(this.cells);
  }

  private get claimCollection() {
    return driverCollection<StoredCellClaim>(this.claims);
  }
}

function toClaim(stored: StoredCellClaim): CellClaim {
  const { west, south, east, north, claim, request, operator, start, end, lower_m, upper_m } = stored;
  return { claim, request, operator, start, end, lower_m, upper_m, bbox: [west, south, east, north] };
}

function toStored(claim: CellClaim, cell: LedgerCell): StoredCellClaim {
  const { bbox, ...rest } = claim;
  const [west, south, east, north] = bbox;
  return { _id: `${claim.claim}@${cell.id}`, key: `${cell.own ? 'own' : 'in'}:${cell.id}`, ...rest, west, south, east, north };
}
