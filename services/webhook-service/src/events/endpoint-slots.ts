import type { EndpointSlotStore, SlotHold } from '../store/endpoint-slot-store.js';

/** What one endpoint's slots are doing in this replica. */
interface EndpointState {
  /** The slots this replica holds for the endpoint, every one with a request under way. */
  holds: SlotHold[];
  /** Takes of a slot in progress. */
  taking: number;
  /** Work waiting for one of `holds` to be handed over (null: the hold could not be kept, go back to the broker). */
  waiting: Array<(hold: SlotHold | null) => void>;
}

/**
 * The per-endpoint concurrency limit across every replica: at most `limit`
 * requests to one endpoint at a time in the whole system (a slot is held
 * for the POST, not for recording what it answered). A slot is a hold in the
 * database (`EndpointSlotStore`), shared by the replicas. While this replica
 * holds one of an endpoint's slots, a few more of its messages for that
 * endpoint may wait here and get the slot as it is handed over, without a
 * write; beyond that, or when other replicas hold every slot, the caller is
 * told the endpoint is busy (and parks the message on the broker), so one
 * slow endpoint cannot fill the prefetch window and hold up everyone else's
 * deliveries.
 */
export class EndpointSlots {
  private readonly endpoints = new Map<string, EndpointState>();

  constructor(
    private readonly store: EndpointSlotStore,
    private readonly limit: number,
    private readonly maxWaiting: number,
    /** The longest a request in a slot takes (the send timeout): a hold handed over must outlast it. */
    private readonly workMs: number,
  ) {}

  /**
   * A replica's slots: `limit` requests per endpoint across the system, and as many of one busy
   * endpoint's messages waiting here as half the replica's window (its prefetch). A slow endpoint
   * holds no more than that, so the other half stays free for everyone else; a fast endpoint
   * under a burst keeps its messages here instead of sending them on a detour through a delay
   * queue.
   */
  static forReplica(store: EndpointSlotStore, limit: number, window: number, workMs: number): EndpointSlots {
    return new EndpointSlots(store, limit, Math.max(limit, Math.floor(window / 2)), workMs);
  }

  /** Runs `work` in a slot of the endpoint, its answer; 'busy' (without running it) when no slot is to be had. */
  async run<T>(endpointId: string, work: () => Promise<T>): Promise<T | 'busy'> {
    const state = this.stateOf(endpointId);
    const hold = await this.takeOrWait(endpointId, state);
    if (!hold) {
      this.forgetIfIdle(endpointId, state);
      return 'busy';
    }
    try {
      return await work();
    } finally {
      await this.handOver(endpointId, state, hold);
    }
  }

  private async takeOrWait(endpointId: string, state: EndpointState): Promise<SlotHold | null> {
    if (state.holds.length + state.taking < this.limit) {
      state.taking += 1;
      let taken: SlotHold | null = null;
      try {
        taken = await this.store.take(endpointId, this.limit, new Set(state.holds.map((hold) => hold.slot)));
      } finally {
        state.taking -= 1;
        if (taken) state.holds.push(taken);
        else this.turnAwayIfNoneHeld(state);
      }
      if (taken) return taken;
    }
    // Only a hold of this replica's (or one being taken) can be handed to work waiting here; other replicas' never come.
    if (state.holds.length + state.taking === 0 || state.waiting.length >= this.maxWaiting) return null;
    return new Promise<SlotHold | null>((resolve) => state.waiting.push(resolve));
  }

  /** With no hold here and none being taken, nothing will be handed to the work still waiting: back to the broker with it. */
  private turnAwayIfNoneHeld(state: EndpointState): void {
    if (state.holds.length + state.taking === 0) for (const waiting of state.waiting.splice(0)) waiting(null);
  }

  /** The next work waiting here gets the slot (renewed when its hold would not outlast it), else the slot is given back. */
  private async handOver(endpointId: string, state: EndpointState, hold: SlotHold): Promise<void> {
    const next = state.waiting.shift();
    if (next) {
      const kept = this.store.lasts(hold, this.workMs) ? hold : await this.store.renew(hold).catch(() => null);
      if (kept) {
        state.holds[state.holds.indexOf(hold)] = kept;
        return next(kept);
      }
      next(null);
    }
    state.holds.splice(state.holds.indexOf(hold), 1);
    this.turnAwayIfNoneHeld(state);
    this.forgetIfIdle(endpointId, state);
    // The request is done and its answer must still be recorded: a hold that cannot be given back
    // now (the database unreachable) expires by itself.
    await this.store.release(hold).catch(() => undefined);
  }

  private stateOf(endpointId: string): EndpointState {
    const known = this.endpoints.get(endpointId);
    if (known) return known;
    const state: EndpointState = { holds: [], taking: 0, waiting: [] };
    this.endpoints.set(endpointId, state);
    return state;
  }

  private forgetIfIdle(endpointId: string, state: EndpointState): void {
    if (state.holds.length === 0 && state.taking === 0 && state.waiting.length === 0) this.endpoints.delete(endpointId);
  }
}
