import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { isDuplicateKey } from '@dfc/kit/db';

/** What a copy of the zone map is known to be as new as: a token no other moment of the map had. */
export type ZoneEpoch = string;

/** The epoch before any zone change was recorded. */
export const FIRST_ZONE_EPOCH: ZoneEpoch = 'none';

interface StoredEpoch {
  _id: string;
  epoch: ZoneEpoch;
  /** When it was replaced last (for people reading the database). */
  at: Date;
}

const MAP = 'zones';

/**
 * The zone map's epoch: one document, read by `_id` with every screening and
 * replaced by every zone change after the change is written. Each new epoch
 * is a random token rather than a count: an unconditional write of a value
 * never used before needs no atomic increment (which the local engine lacks),
 * and a replica that reads the epoch it caught up at knows that no change
 * ended since it read that epoch (docs/architecture.md, "Zone freshness").
 */
export class ZoneEpochStore {
  constructor(private readonly connection: Connection) {}

  async current(): Promise<ZoneEpoch> {
    const stored = await this.epochs().findOne({ _id: MAP }, { projection: { epoch: 1 } });
    return stored?.epoch ?? FIRST_ZONE_EPOCH;
  }

  /** A new epoch: every replica whose copy is older reloads what changed before its next screening. */
  async advance(): Promise<ZoneEpoch> {
    const epoch = randomUUID();
    const write = () => this.epochs().updateOne({ _id: MAP }, { $set: { epoch, at: new Date() } }, { upsert: true });
    try {
      await write();
    } catch (error) {
      // Two first epochs inserted at once: one insert wins, the other write now finds the document.
      if (!isDuplicateKey(error)) throw error;
      await write();
    }
    return epoch;
  }

  private epochs() {
    return this.connection.db!.collection<StoredEpoch>('zone_epochs');
  }
}
