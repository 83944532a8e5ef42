import type { Logger } from '@dfc/kit/logging';
import type { AttemptFields, ClaimedDelivery, DeliveryStore } from './delivery-store.js';

interface Pending {
  delivery: ClaimedDelivery;
  attempt: AttemptFields;
}

const MAX_BATCH = 100;

/**
 * Successful attempts are by far the most frequent write; they are grouped
 * so that many deliveries cost two writes. Successes reported while a write
 * is under way go into the next one (no timer: under light load every batch
 * holds one, so nothing waits).
 * Were the process to die before its batch is written, the delivery stays
 * pending, its lease runs out, and it is sent again — at least once, which
 * receivers absorb by X-Webhook-Id.
 */
export class SuccessWriter {
  private waiting: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly log: Logger,
  ) {}

  record(delivery: ClaimedDelivery, attempt: AttemptFields): void {
    this.waiting.push({ delivery, attempt });
    this.writing ??= this.drain();
  }

  /** Resolves once everything recorded so far is written (or given up on). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      try {
        await this.deliveries.recordSuccesses(batch, new Date());
      } catch (error) {
        // Left pending under our lease: once it expires the deliveries are sent again.
        this.log.warn({ err: (error as Error).message, count: batch.length }, 'recording successful deliveries failed');
      }
    }
    this.writing = undefined;
  }
}
