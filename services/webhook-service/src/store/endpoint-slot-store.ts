import { randomUUID } from 'node:crypto';
import { acrossProcesses, driverCollection, isDuplicateKey } from '@dfc/kit/db';
import type { EndpointSlotLease, EndpointSlotModel } from './endpoint-slot-model.js';

/** A slot this replica holds: what releasing or renewing it names. */
export interface SlotHold {
  endpointId: string;
  slot: number;
  holder: string;
  expiresAt: Date;
}

/**
 * The endpoints' request slots, shared by every replica: a slot is held by
 * inserting its document (a unique `_id` per endpoint and slot number, so of
 * two replicas taking one slot exactly one succeeds, on MongoDB and on the
 * local engine alike) and given back by deleting it. A hold has an expiry,
 * so a replica that died holding a slot blocks it only until then; the
 * holder never gives back or renews a hold within `clockMarginMs` of its
 * expiry, and another replica takes an expired one over only after it, so
 * the two never act on one hold at once while their clocks agree within
 * that margin.
 */
export class EndpointSlotStore {
  constructor(
    private readonly model: EndpointSlotModel,
    private readonly holdMs: number,
    private readonly clockMarginMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * A free slot of the endpoint's `limit` (numbered 0 … limit - 1), skipping those this replica
   * holds, or one whose holder's hold has run out; null when every slot is held.
   */
  async take(endpointId: string, limit: number, heldHere: ReadonlySet<number>): Promise<SlotHold | null> {
    const candidates = rotated(
      Array.from({ length: limit }, (_, slot) => slot).filter((slot) => !heldHere.has(slot)),
      Math.floor(Math.random() * limit),
    );
    if (candidates.length === 0) return null;
    // Most of the time a slot is free: one insert, nothing read.
    const first = await this.insert(endpointId, candidates[0]!);
    if (first) return first;
    // Each round reads which slots are held; a slot seen free but taken meanwhile went to another taker,
    // so the rounds end within `limit`.
    for (let round = 0; round < limit; round++) {
      const held = new Map((await driverCollection(this.model).find({ endpoint_id: endpointId }).toArray()).map((lease) => [lease.slot, lease]));
      const now = this.now().getTime();
      const free = candidates.filter((slot) => !held.has(slot));
      const expired = candidates
        .map((slot) => held.get(slot))
        .filter((lease): lease is EndpointSlotLease => lease !== undefined && lease.expires_at.getTime() < now);
      if (free.length === 0 && expired.length === 0) return null;
      for (const slot of free) {
        const taken = await this.insert(endpointId, slot);
        if (taken) return taken;
      }
      for (const lease of expired) {
        const taken = await this.takeOver(lease);
        if (taken) return taken;
      }
    }
    return null;
  }

  /** Gives the slot back; a hold this close to its expiry is left to expire (another replica may be taking it over). */
  async release(hold: SlotHold): Promise<void> {
    if (!this.safelyBefore(hold.expiresAt)) return;
    await driverCollection(this.model).deleteOne({ _id: slotId(hold.endpointId, hold.slot), holder: hold.holder });
  }

  /** The same hold with a new expiry, for the next request in the slot; null when it is too late to be sure it is still ours. */
  async renew(hold: SlotHold): Promise<SlotHold | null> {
    if (!this.safelyBefore(hold.expiresAt)) return null;
    const expiresAt = new Date(this.now().getTime() + this.holdMs);
    const result = await driverCollection(this.model).updateOne(
      { _id: slotId(hold.endpointId, hold.slot), holder: hold.holder },
      { $set: { expires_at: expiresAt } },
    );
    return result.matchedCount === 1 ? { ...hold, expiresAt } : null;
  }

  /** Whether a hold still has at least `ms` to run, with the clock margin to spare. */
  lasts(hold: SlotHold, ms: number): boolean {
    return hold.expiresAt.getTime() - this.now().getTime() >= ms + this.clockMarginMs;
  }

  private safelyBefore(expiresAt: Date): boolean {
    return expiresAt.getTime() - this.now().getTime() > this.clockMarginMs;
  }

  private async insert(endpointId: string, slot: number): Promise<SlotHold | null> {
    const hold = { endpointId, slot, holder: randomUUID(), expiresAt: new Date(this.now().getTime() + this.holdMs) };
    try {
      await driverCollection(this.model).insertOne(stored(hold));
      return hold;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  /**
   * Removes a hold that expired, then takes the slot like a free one. On the local engine, whose
   * conditional deletes are not atomic across processes, two replicas removing the same expired
   * hold could each delete what the other inserted after it: a write guard named after the
   * expired hold lets one of them at a time do it.
   */
  private async takeOver(expired: EndpointSlotLease): Promise<SlotHold | null> {
    return acrossProcesses(this.model.db, this.model.collection.collectionName, `${expired._id}/${expired.holder}`, 0, async () => {
      await driverCollection(this.model).deleteOne({ _id: expired._id, holder: expired.holder, expires_at: { $lt: this.now() } });
      return this.insert(expired.endpoint_id, expired.slot);
    });
  }
}

function slotId(endpointId: string, slot: number): string {
  return `${endpointId}/${slot}`;
}

function stored(hold: SlotHold): EndpointSlotLease {
  return { _id: slotId(hold.endpointId, hold.slot), endpoint_id: hold.endpointId, slot: hold.slot, holder: hold.holder, expires_at: hold.expiresAt };
}

/** The slots from a random one on, so replicas taking slots at once do not all try slot 0 first. */
function rotated<T>(items: T[], by: number): T[] {
  if (items.length === 0) return items;
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
