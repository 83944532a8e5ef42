import type { CellClaim } from '../domain/deconfliction/reservation.js';

/** The claims written under one key of a ledger cell (`own:<cell>` or `in:<cell>`), by document id, as of a version of the cell. */
export interface CellSnapshot {
  version: number;
  claims: ReadonlyMap<string, CellClaim>;
}

/** How many keys this process keeps, and how many claims over all of them: the least recently read go first. */
const MAX_KEYS = 4_096;
const MAX_CLAIMS = 10_000;

/**
 * What this process last read under each key of the ledger, with the cell
 * version it read it at. Never a source of truth: a reader always reads the
 * cell's version from the database first and asks `at` for what it has at or
 * below it; the store then reads only the documents written at each version
 * since (docs/architecture.md, "Deconfliction"). A snapshot may still list
 * a claim withdrawn elsewhere; such a claim is judged by its request, as a
 * full read racing the withdrawal would list it too.
 */
export class CellSnapshots {
  private readonly byKey = new Map<string, CellSnapshot>();
  private claimCount = 0;

  /** The snapshot of `key` last kept, whatever version it is of: a later one lists every claim an earlier one does, and more. */
  latest(key: string): CellSnapshot | undefined {
    const known = this.byKey.get(key);
    if (!known) return undefined;
    this.byKey.delete(key);
    this.byKey.set(key, known);
    return known;
  }

  /** Keeps `snapshot` unless a later one is kept already. */
  keep(key: string, snapshot: CellSnapshot): void {
    const known = this.byKey.get(key);
    if (known && known.version > snapshot.version) return;
    this.claimCount += snapshot.claims.size - (known?.claims.size ?? 0);
    this.byKey.delete(key);
    this.byKey.set(key, snapshot);
    this.evict();
  }

  /** The snapshot of `key` at `from` advanced to `to` with `written`: what a write from `from` that raised the version adds. */
  advance(key: string, from: number, to: number, written: Array<[string, CellClaim]>): void {
    const known = this.byKey.get(key);
    if (known?.version !== from) return;
    this.keep(key, { version: to, claims: new Map([...known.claims, ...written]) });
  }

  /**
   * Drops every document of `claims` from every snapshot: they were withdrawn. A snapshot is copied only when it
   * lists one of them (a reader may still hold the one it was given), and nothing is walked when none was withdrawn:
   * every attempt at a cell withdraws the void claims it met, mostly none.
   */
  forget(claims: ReadonlySet<string>): void {
    if (claims.size === 0) return;
    for (const [key, snapshot] of this.byKey) {
      let kept: Map<string, CellClaim> | undefined;
      for (const [id, claim] of snapshot.claims) {
        if (!claims.has(claim.claim)) continue;
        kept ??= new Map(snapshot.claims);
        kept.delete(id);
      }
      if (!kept) continue;
      this.claimCount -= snapshot.claims.size - kept.size;
      this.byKey.set(key, { version: snapshot.version, claims: kept });
    }
  }

  private evict(): void {
    for (const [key, snapshot] of this.byKey) {
      if (this.byKey.size <= MAX_KEYS && this.claimCount <= MAX_CLAIMS) return;
      this.byKey.delete(key);
      this.claimCount -= snapshot.claims.size;
    }
  }
}
