import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The most calls a replica takes from a shared counter at once. */
const MAX_BLOCK = 10;
/** Past this many keys, blocks whose window has ended are dropped. */
const SWEEP_AT = 10_000;

interface Block {
  left: number;
  /** What the shared counter had left once this block was taken. */
  remainingAfter: number;
  until: number;
}

/**
 * A shared limit counted in blocks: a replica takes a few calls of a key from
 * the shared counter in one write, then serves them itself. It never serves a
 * call the counter did not give it, so the limit holds for all replicas
 * together; what a replica holds unused when the window ends is lost to the
 * others, at most one block less a call per replica. One call a second of the
 * limit's average rate per block (at most MAX_BLOCK): small limits, and those
 * on failures, count every call as before.
 */
export class BlockLimiter {
  private readonly blocks = new Map<string, Block>();
  readonly size: number;

  constructor(
    private readonly shared: RateLimiterAbstract,
    durationSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.size = Math.max(1, Math.min(MAX_BLOCK, Math.floor(shared.points / durationSeconds)));
  }

  get points(): number {
    return this.shared.points;
  }

  /** One call of `key`: what the limit has left after it, or a rejection with the shared counter's RateLimiterRes, as `consume` does. */
  async consume(key: string): Promise<{ remainingPoints: number }> {
    const held = this.blocks.get(key);
    if (held && held.left > 0 && held.until > this.now()) {
      held.left -= 1;
      return { remainingPoints: held.remainingAfter + held.left };
    }
    this.blocks.delete(key);
    if (this.size === 1) return this.shared.consume(key);
    const taken = await this.shared.consume(key, this.size).catch((refusal: unknown) => {
      // Refused from the counter's memory (no count read) or by the store failing: nothing was taken.
      if (!(refusal instanceof RateLimiterRes) || refusal.consumedPoints === 0) throw refusal;
      return refusal;
    });
    const before = taken.consumedPoints - this.size;
    const granted = Math.min(this.size, this.shared.points - before);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the library's contract, which callers read: a refusal rejects with its RateLimiterRes
    if (granted <= 0) throw taken;
    const remainingAfter = Math.max(0, this.shared.points - before - granted);
    if (granted > 1) this.keep(key, { left: granted - 1, remainingAfter, until: this.now() + taken.msBeforeNext });
    return { remainingPoints: remainingAfter + granted - 1 };
  }

  private keep(key: string, block: Block): void {
    if (this.blocks.size >= SWEEP_AT) {
      const now = this.now();
      for (const [other, { until }] of this.blocks) if (until <= now) this.blocks.delete(other);
    }
    this.blocks.set(key, block);
  }
}
