import type { Logger } from '@dfc/kit/logging';
import type { ClaimedDelivery, DeliveryStore } from '../store/delivery-store.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';

export interface DispatcherOptions {
  pollIntervalMs: number;
  maxInFlight: number;
  maxInFlightPerEndpoint: number;
  /** How long a claim holds; longer than an attempt can take, so only a crashed replica's claims expire. */
  leaseMs: number;
  /** An attempt's own time limit: a handed-over delivery whose lease has less left is renewed first. */
  attemptTimeoutMs: number;
  /** Most deliveries waiting in memory; beyond it new deliveries are left to the database poll. */
  maxQueued: number;
}

/** A delivery this replica already holds the lease of, with the endpoint as read when it was created. */
export interface HandedOver {
  delivery: ClaimedDelivery;
  endpoint?: WebhookEndpoint;
}

export type AttemptFn = (work: HandedOver) => Promise<Date | null>;

const RENEW_MARGIN_MS = 5_000;

/**
 * Sends due deliveries, from two sources:
 * - deliveries this replica has just created, already leased to it at
 *   creation and handed over in memory: the first attempt goes out without
 *   another database round trip (low latency);
 * - the database: due deliveries claimed atomically with a lease (retries,
 *   redeliveries, another replica's or a crashed replica's work). Replicas
 *   share the work and a restart resumes every pending retry. It is woken by
 *   retries it scheduled itself and polls for anything else.
 *
 * Limits: at most `maxInFlight` attempts at a time, and at most
 * `maxInFlightPerEndpoint` per endpoint, so a slow receiver holds a few slots
 * and everyone else's deliveries go past it.
 */
export class Dispatcher {
  private readonly running = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly queued: HandedOver[] = [];
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

  /**
   * Lets the attempts under way finish, then stops. Deliveries still waiting
   * in memory are released for whoever polls next (were that to fail, their
   * leases simply expire).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.wakeTimer);
    const waiting = this.queued.splice(0).map((work) => work.delivery);
    await Promise.allSettled([...this.running, this.deliveries.releaseLeases(waiting)]);
  }

  /** Whether `count` more deliveries may be handed over in memory. */
  hasRoomFor(count: number): boolean {
    return !this.stopped && this.queued.length + count <= this.options.maxQueued;
  }

  handOver(work: HandedOver[]): void {
    this.queued.push(...work);
    this.kick();
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
          const work = this.nextHandedOver() ?? (await this.claimFromDatabase());
          if (!work) break;
          this.launch(work);
        }
      } while (this.pumpAgain && !this.stopped);
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, 'claiming deliveries failed; the next poll retries');
    } finally {
      this.pumping = false;
    }
  }

  /** The first handed-over delivery whose endpoint has a free slot. */
  private nextHandedOver(): HandedOver | undefined {
    const index = this.queued.findIndex((work) => !this.isBusy(work.delivery.endpoint_id));
    return index < 0 ? undefined : this.queued.splice(index, 1)[0];
  }

  private async claimFromDatabase(): Promise<HandedOver | undefined> {
    const busy = [...this.perEndpoint.keys()].filter((endpointId) => this.isBusy(endpointId));
    const delivery = await this.deliveries.claimDue(new Date(), this.options.leaseMs, busy);
    return delivery ? { delivery } : undefined;
  }

  private isBusy(endpointId: string): boolean {
    return (this.perEndpoint.get(endpointId) ?? 0) >= this.options.maxInFlightPerEndpoint;
  }

  private launch(work: HandedOver): void {
    const endpointId = work.delivery.endpoint_id;
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 0) + 1);
    const run = this.runAttempt(work)
      .then((nextAttemptAt) => {
        if (nextAttemptAt) this.wakeUpAt(nextAttemptAt);
      })
      .catch((error: Error) => {
        // The lease runs out and the delivery is claimed again: nothing is lost.
        this.log.error({ err: error.message, delivery_id: work.delivery._id }, 'delivery attempt crashed');
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

  /** A delivery that waited in memory long enough for its lease to run short gets it renewed, or is left to whoever took it. */
  private async runAttempt(work: HandedOver): Promise<Date | null> {
    const leaseLeft = (work.delivery.lease_until?.getTime() ?? 0) - Date.now();
    if (leaseLeft < this.options.attemptTimeoutMs + RENEW_MARGIN_MS) {
      const renewed = await this.deliveries.renewLease(work.delivery, new Date(), this.options.leaseMs);
      if (!renewed) return null;
    }
    return this.attempt(work);
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
