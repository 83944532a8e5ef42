import { acrossProcesses, driverCollection, isDuplicateKey, serialisedPerDocument } from '@dfc/kit/db';
import type { CellClaim } from '../domain/deconfliction/reservation.js';
import type { AirspaceCellModel, StoredAirspaceCell, StoredCellClaim } from './airspace-ledger-model.js';

/** A ledger cell as read: its claims and the version the next write is conditional on (null: no document yet). */
export interface AirspaceCell {
  id: string;
  version: number | null;
  claims: CellClaim[];
}

/**
 * The reservation ledger. Every write replaces a cell's claims conditionally
 * on the version read, atomically across processes on every engine; a cell
 * that does not exist yet is created by an insert that its unique `_id`
 * makes the only one.
 */
export class AirspaceLedgerStore {
  constructor(private readonly model: AirspaceCellModel) {}

  /**
   * Runs `work` (a read, a decision, a write of cell `id`) after every other
   * such work on the same cell in this process: claims made by one replica
   * queue up instead of racing each other; across replicas the conditional
   * write still decides.
   */
  exclusively<T>(id: string, work: () => Promise<T>): Promise<T> {
    return serialisedPerDocument(this.model.collection.name, id, work);
  }

  async read(id: string): Promise<AirspaceCell> {
    const stored = await this.collection.findOne({ _id: id });
    return { id, version: stored?.version ?? null, claims: (stored?.claims ?? []).map(toClaim) };
  }

  /** Whether the cell now lists exactly `claims`: false when someone wrote it since it was read. Call it inside `exclusively`. */
  async write(cell: AirspaceCell, claims: CellClaim[]): Promise<boolean> {
    const stored = claims.map(toStored);
    if (cell.version === null) {
      try {
        await this.collection.insertOne({ _id: cell.id, version: 0, claims: stored });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    }
    const version = cell.version;
    const written = await acrossProcesses(this.model.db, this.model.collection.name, cell.id, version, async () => {
      const result = await this.collection.updateOne({ _id: cell.id, version }, { $set: { claims: stored }, $inc: { version: 1 } });
      return result.matchedCount === 1 ? true : null;
    });
    return written === true;
  }

  private get collection() {
    return driverCollection<StoredAirspaceCell>(this.model);
  }
}

function toClaim(stored: StoredCellClaim): CellClaim {
  const { west, south, east, north, volume, reference, amsl_lower_m, amsl_upper_m, ...claim } = stored;
  return {
    ...claim,
    volume: volume ?? 0,
    reference: reference ?? 'AGL',
    amsl_lower_m: amsl_lower_m ?? null,
    amsl_upper_m: amsl_upper_m ?? null,
    bbox: [west, south, east, north],
  };
}

function toStored(claim: CellClaim): StoredCellClaim {
  const { bbox, ...rest } = claim;
  const [west, south, east, north] = bbox;
  return { ...rest, west, south, east, north };
}
