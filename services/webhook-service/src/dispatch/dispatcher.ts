import type { Logger } from '@dfc/kit';
import type { ClaimedDelivery, DeliveryStore } from '../store/delivery-store.js';

export interface DispatcherOptions {
  pollIntervalMs: number;
  maxInFlight: number;
  maxInFlightPerEndpoint: number;
  /** How long a claim holds; longer than an attempt can take, so only a crashed replica's claims expire. */
  leaseMs: number;
}

export type AttemptFn = (delivery: ClaimedDelivery) => Promise<Date | null>;

/**
 * Sends due deliveries. Work is found in the database only (claimed with a
 * lease), so replicas share it and a restart resumes every pending retry.
 * It is woken at once by new events and by retries it scheduled itself, and
 * polls for anything else (other replicas' retries, expired leases).
 *
 * Limits: at most `maxInFlight` attempts at a time, and at most
 * `maxInFlightPerEndpoint` per endpoint, so a slow receiver holds a few
 * slots and everyone else's deliveries go past it.
 */
export class Dispatcher {
  private readonly running = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private pollTimer: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;
  private pumping = false;
  private pumpAgain = false;
  private stopped = true;

  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly attempt: AttemptFn,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.pollTimer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.kick();
  }

  /** Lets the attempts under way finish, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.wakeTimer);
    await Promise.allSettled([...this.running]);
  }

  /** Something is due now. */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        while (!this.stopped && this.running.size < this.options.maxInFlight) {
          const delivery = await this.deliveries.claimDue(new Date(), this.options.leaseMs, this.busyEndpoints());
          if (!delivery) break;
          this.launch(delivery);
        }
      } while (this.pumpAgain && !this.stopped);
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, 'claiming deliveries failed; the next poll retries');
    } finally {
      this.pumping = false;
    }
  }

  private launch(delivery: ClaimedDelivery): void {
    const endpointId = delivery.endpoint_id;
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 0) + 1);
    const run = this.attempt(delivery)
      .then((nextAttemptAt) => {
        if (nextAttemptAt) this.wakeUpAt(nextAttemptAt);
      })
      .catch((error: Error) => {
        // The lease runs out and the delivery is claimed again: nothing is lost.
        this.log.error({ err: error.message, delivery_id: delivery._id }, 'delivery attempt crashed');
      })
      .finally(() => {
        this.running.delete(run);
        const left = (this.perEndpoint.get(endpointId) ?? 1) - 1;
        if (left > 0) this.perEndpoint.set(endpointId, left);
        else this.perEndpoint.delete(endpointId);
        this.kick();
      });
    this.running.add(run);
  }

  private busyEndpoints(): string[] {
    const busy: string[] = [];
    for (const [endpointId, count] of this.perEndpoint) if (count >= this.options.maxInFlightPerEndpoint) busy.push(endpointId);
    return busy;
  }

  /** One timer for the earliest retry this replica knows of; the poll covers the rest. */
  private wakeUpAt(at: Date): void {
    const time = at.getTime();
    if (time >= this.wakeAt && this.wakeTimer) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = time;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = Infinity;
      this.wakeTimer = undefined;
      this.kick();
    }, Math.max(0, time - Date.now()) + 5);
    this.wakeTimer.unref();
  }
}
