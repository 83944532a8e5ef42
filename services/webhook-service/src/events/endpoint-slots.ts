/**
 * The per-endpoint concurrency limit of one replica: at most `limit`
 * requests to one endpoint at a time (a slot is held for the POST, not for
 * recording what it answered). A few more may wait here for a slot; beyond
 * that the caller is told the endpoint is busy (and parks the message on the
 * broker), so one slow endpoint cannot fill the prefetch window and hold up
 * everyone else's deliveries.
 */
export class EndpointSlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  /**
   * A replica's slots: `limit` attempts per endpoint, and as many of one busy
   * endpoint's messages waiting here as half the replica's window (its
   * prefetch). A slow endpoint holds no more than that, so the other half stays
   * free for everyone else; a fast endpoint under a burst keeps its messages
   * here instead of sending them on a detour through a delay queue.
   */
  static forReplica(limit: number, window: number): EndpointSlots {
    return new EndpointSlots(limit, Math.max(limit, Math.floor(window / 2)));
  }

  /** Runs `work` in a slot of the endpoint, its answer; 'busy' (without running it) when too many are waiting already. */
  async run<T>(endpointId: string, work: () => Promise<T>): Promise<T | 'busy'> {
    if ((this.running.get(endpointId) ?? 0) >= this.limit) {
      const queue = this.waiting.get(endpointId) ?? [];
      if (queue.length >= this.maxWaiting) return 'busy';
      await new Promise<void>((resolve) => {
        queue.push(resolve);
        this.waiting.set(endpointId, queue);
      });
    } else {
      this.running.set(endpointId, (this.running.get(endpointId) ?? 0) + 1);
    }
    try {
      return await work();
    } finally {
      this.release(endpointId);
    }
  }

  /** Hands the slot to the next waiter, or frees it. */
  private release(endpointId: string): void {
    const next = this.waiting.get(endpointId)?.shift();
    if (this.waiting.get(endpointId)?.length === 0) this.waiting.delete(endpointId);
    if (next) return next();
    const left = (this.running.get(endpointId) ?? 1) - 1;
    if (left > 0) this.running.set(endpointId, left);
    else this.running.delete(endpointId);
  }
}
