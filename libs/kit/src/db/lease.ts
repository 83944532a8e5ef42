import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Connection } from 'mongoose';
import { acrossProcesses, isDuplicateKey } from './engine-gaps.js';

/** Where every lease of a service's database is kept: one document per lease, by name. */
export const LEASES_COLLECTION = 'leases';

interface StoredLease {
  _id: string;
  owner: string;
  expires_at: Date;
  /** Raised by every write, so that of two replicas taking a lapsed lease at once only one succeeds. */
  version: number;
}

export interface LeaseOptions {
  /** How long the lease lasts from its last taking or renewal: a holder that dies hands it over after this. */
  ttlMs: number;
  /** Who takes it; a new one per Lease by default (host, process and a random part). */
  owner?: string;
  now?: () => Date;
}

/**
 * Background work one replica of a service does per round: whoever holds the
 * lease does it, the others skip the round. The lease is a document of
 * `leases` taken by a write conditional on the version read, and only while
 * it is free, lapsed or already the taker's; on the local engine, whose
 * conditional writes are not atomic across connections, that write runs
 * under the kit's write guard (`acrossProcesses`). A holder that dies keeps
 * it until `expires_at`, then the next replica to try takes it: a crash
 * mid-round loses nothing, as long as the work is safe to do again (every
 * sweep here writes conditionally). Clocks of the replicas decide only when a
 * lapsed lease is taken over, never whether two hold it.
 */
export class Lease {
  readonly owner: string;

  constructor(
    private readonly connection: Connection,
    readonly name: string,
    private readonly options: LeaseOptions,
  ) {
    this.owner = options.owner ?? `${hostname()}/${process.pid}/${randomUUID()}`;
  }

  /** Takes or renews the lease until now + ttl when it is free, lapsed or this owner's; whether this owner holds it. */
  async acquire(): Promise<boolean> {
    const leases = this.leases();
    const now = this.now();
    const expires_at = new Date(now.getTime() + this.options.ttlMs);
    const current = await leases.findOne({ _id: this.name });
    if (!current) {
      try {
        await leases.insertOne({ _id: this.name, owner: this.owner, expires_at, version: 0 });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    }
    if (current.owner !== this.owner && current.expires_at.getTime() > now.getTime()) return false;
    const written = await acrossProcesses(this.connection, LEASES_COLLECTION, this.name, current.version, () =>
      leases.updateOne({ _id: this.name, version: current.version }, { $set: { owner: this.owner, expires_at }, $inc: { version: 1 } }),
    );
    return written?.matchedCount === 1;
  }

  /** Gives the lease up when this owner holds it, so another replica need not wait for it to lapse. */
  async release(): Promise<void> {
    const leases = this.leases();
    const current = await leases.findOne({ _id: this.name });
    if (current?.owner !== this.owner) return;
    await acrossProcesses(this.connection, LEASES_COLLECTION, this.name, current.version, () =>
      leases.updateOne({ _id: this.name, version: current.version }, { $set: { expires_at: new Date(0) }, $inc: { version: 1 } }),
    );
  }

  /**
   * One round of work, done only when this owner takes the lease (returns whether it ran), renewed while the
   * work lasts. With `release`, the lease is given up after the round, so the next round goes to whichever
   * replica asks first; without it, the holder keeps it until it lapses and does the rounds until then.
   */
  async runIfHeld(work: () => Promise<unknown>, options: { release?: boolean } = {}): Promise<boolean> {
    if (!(await this.acquire())) return false;
    // A round may outlast the lease: renewed at a third of it, so it does not lapse under the work.
    let renewing: Promise<unknown> = Promise.resolve();
    const renewal = setInterval(
      () => {
        renewing = this.acquire().catch(() => false);
      },
      Math.max(1, Math.floor(this.options.ttlMs / 3)),
    );
    renewal.unref();
    try {
      await work();
    } finally {
      clearInterval(renewal);
      // A renewal landing after the release would take the lease back for a whole ttl.
      await renewing;
      if (options.release) await this.release();
    }
    return true;
  }

  private leases() {
    return this.connection.db!.collection<StoredLease>(LEASES_COLLECTION);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
