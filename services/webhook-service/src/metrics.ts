import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed' | 'gone';

/** Read from the database at scrape time, so every replica reports the shared state. */
export interface SharedState {
  /** When the longest-waiting due delivery became due (deliveries waiting for a retry are not due). */
  oldestDueAt(): Promise<Date | null>;
  coolingEndpoints(): Promise<number>;
  /** Due attempts not yet made, up to a cap (`DeliveryStore.countDue`). */
  attemptsWaiting(): Promise<number>;
}

/** The webhook service's own metrics, on the app's registry. */
export class WebhookMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly endToEnd: Histogram;
  readonly eventsConsumed: Counter<'type'>;

  constructor(registry: Registry, state: SharedState) {
    this.attempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Delivery attempts by outcome: succeeded, retrying (failed, another attempt scheduled), failed (no attempts left, or endpoint disabled), gone (410, endpoint disabled)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    this.attemptDuration = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of one delivery attempt (request sent to answer read)',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.endToEnd = new Histogram({
      name: 'webhook_delivery_latency_seconds',
      help: 'From the domain event (state change) to the 2xx of its delivery, retries included',
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86_400],
      registers: [registry],
    });
    this.eventsConsumed = new Counter({
      name: 'webhook_events_consumed_total',
      help: 'Domain events consumed from the broker, by type',
      labelNames: ['type'] as const,
      registers: [registry],
    });
    new Gauge({
      name: 'webhook_backlog_oldest_due_seconds',
      help: 'How long the longest-waiting due delivery has been due (0 when none): the alert on a stuck or slow pipeline',
      registers: [registry],
      async collect() {
        const oldest = await state.oldestDueAt();
        this.set(oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'webhook_attempts_waiting',
      help: 'Due delivery attempts not yet made (pending deliveries whose time has come, up to 100,000), from the delivery log: every replica reports the same figure, which the autoscaler divides among them',
      registers: [registry],
      async collect() {
        this.set(await state.attemptsWaiting());
      },
    });
    new Gauge({
      name: 'webhook_endpoints_cooling_off',
      help: 'Endpoints in cool-off after consecutive failures (their deliveries wait)',
      registers: [registry],
      async collect() {
        this.set(await state.coolingEndpoints());
      },
    });
  }

  recordAttempt(outcome: AttemptOutcome, latencyMs: number): void {
    this.attempts.inc({ outcome });
    this.attemptDuration.observe({ outcome }, latencyMs / 1000);
  }

  /** A 2xx, `latencyMs` after the event it delivers was created. */
  recordArrival(latencyMs: number): void {
    this.endToEnd.observe(Math.max(0, latencyMs) / 1000);
  }
}
