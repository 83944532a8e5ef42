import { acrossProcesses, driverCollection, isDuplicateKey, serialisedPerDocument } from '@dfc/kit/db';
import type { LedgerCell } from '../domain/deconfliction/airspace-volume.js';
import type { CellClaim } from '../domain/deconfliction/reservation.js';
import { CellSnapshots } from './cell-snapshots.js';
import type { AirspaceCellModel, CellClaimModel, StoredAirspaceCell, StoredCellClaim } from './airspace-ledger-model.js';

/** Past this many versions since what this process last read of a cell, one read of all its claims costs less than one read per version. */
const MAX_VERSIONS_READ_APART = 8;

/** A ledger cell as a claim writing into it reads it: the claims it must judge, and the version its write is conditional on (null: no document yet). */
export interface AirspaceCell {
  id: string;
  own: boolean;
  version: number | null;
  claims: CellClaim[];
}

/** One volume's claim as written into a cell: at home there (`own`), or a mark of a finer volume around it. */
export interface WrittenClaim {
  claim: CellClaim;
  own: boolean;
}

/**
 * The reservation ledger: per cell-hour a version document, and each claim
 * written into the cell as a document of its own. A claim is written into a
 * cell by inserting its document and then raising the cell's version,
 * conditionally on the version read before the cell's claims were read:
 * of two claims that read the same version, one raise fails and its writer
 * reads the cell again, the other's claim now among the claims. Atomic
 * across processes on every engine; a cell that does not exist yet is created
 * by an insert that its unique `_id` makes the only one. Each document
 * carries the version its write raised the cell to, so that a reader which
 * read the cell before reads only the documents of the versions since.
 */
export class AirspaceLedgerStore {
  private readonly snapshots = new CellSnapshots();

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

  /**
   * The version first, then the claims: a claim written after this read
   * raises the version, so the write that follows fails. The claims come from
   * what this process read of the cell before, at a version at or below the
   * one just read, and the documents written at each version since; a full
   * read when it has none or too many versions passed.
   */
  async read(cell: LedgerCell): Promise<AirspaceCell> {
    const stored = await this.cellCollection.findOne({ _id: cell.id });
    const version = stored?.version ?? null;
    const keys = cell.own ? [`own:${cell.id}`, `in:${cell.id}`] : [`own:${cell.id}`];
    const claims = (await Promise.all(keys.map((key) => this.claimsUnder(key, version)))).flat();
    return { ...cell, version, claims };
  }

  private async claimsUnder(key: string, version: number | null): Promise<CellClaim[]> {
    if (version === null) return (await this.claimCollection.find({ key }).toArray()).map(toClaim);
    const known = this.snapshots.latest(key);
    // Kept from this version or a later one (read meanwhile by another claim of this process): nothing it lacks.
    if (known && known.version >= version) return [...known.claims.values()];
    const missed = known ? version - known.version : Infinity;
    const documents =
      missed <= MAX_VERSIONS_READ_APART
        ? (await Promise.all(Array.from({ length: missed }, (_, n) => this.claimCollection.find({ key, at: version - n }).toArray()))).flat()
        : await this.claimCollection.find({ key }).toArray();
    const claims = new Map(missed <= MAX_VERSIONS_READ_APART ? known?.claims : undefined);
    for (const document of documents) claims.set(document._id, toClaim(document));
    this.snapshots.keep(key, { version, claims });
    return [...claims.values()];
  }

  /**
   * Whether `claims` (the volumes of one claim that touch the cell) are now
   * written into it: false when another claim was written since the cell was
   * read. Call it inside `exclusively`.
   */
  async write(cell: AirspaceCell, claims: WrittenClaim[]): Promise<boolean> {
    const raised = (cell.version ?? 0) + 1;
    const stored = claims.map((claim) => toStored(claim, cell, raised));
    await Promise.all(stored.map((document) => this.claimCollection.replaceOne({ _id: document._id }, document, { upsert: true })));
    if (!(await this.raise(cell))) return false;
    if (cell.version !== null) {
      for (const key of new Set(stored.map((document) => document.key))) {
        const written = stored.filter((document) => document.key === key).map((document): [string, CellClaim] => [document._id, toClaim(document)]);
        this.snapshots.advance(key, cell.version, raised, written);
      }
    }
    return true;
  }

  /** Raises the cell's version from the one read: false when another claim raised it first. */
  private async raise(cell: AirspaceCell): Promise<boolean> {
    const version = cell.version;
    if (version === null) {
      try {
        await this.cellCollection.insertOne({ _id: cell.id, version: 1 });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    }
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
    const withdrawn = new Set(claims);
    if (withdrawn.size === 0) return;
    await Promise.all([...withdrawn].map((claim) => this.claimCollection.deleteMany({ claim })));
    this.snapshots.forget(withdrawn);
  }

  private get cellCollection() {
    return driverCollection<StoredAirspaceCell>(this.cells);
  }

  private get claimCollection() {
    return driverCollection<StoredCellClaim>(this.claims);
  }
}

function toClaim(stored: StoredCellClaim): CellClaim {
  const { west, south, east, north, claim, request, operator, volume, start, end, reference, lower_m, upper_m, amsl_lower_m, amsl_upper_m } = stored;
  return {
    claim,
    request,
    operator,
    volume: volume ?? 0,
    start,
    end,
    reference: reference ?? 'AGL',
    lower_m,
    upper_m,
    amsl_lower_m: amsl_lower_m ?? null,
    amsl_upper_m: amsl_upper_m ?? null,
    bbox: [west, south, east, north],
  };
}

function toStored({ claim, own }: WrittenClaim, cell: LedgerCell, at: number): StoredCellClaim {
  const { bbox, ...rest } = claim;
  const [west, south, east, north] = bbox;
  return { _id: `${claim.claim}.${claim.volume}@${cell.id}`, key: `${own ? 'own' : 'in'}:${cell.id}`, at, ...rest, west, south, east, north };
}
