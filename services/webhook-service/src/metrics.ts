import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueueStats } from './store/delivery-store.js';

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed' | 'gone';

/** The webhook service's own metrics, on the app's registry. */
export class WebhookMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly eventsConsumed: Counter<'type'>;

  constructor(registry: Registry, queueStats: () => Promise<QueueStats>) {
    this.attempts = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Delivery attempts by outcome: succeeded, retrying (failed, another attempt scheduled), failed (no attempts left), gone (410, endpoint disabled)',
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
    this.eventsConsumed = new Counter({
      name: 'webhook_events_consumed_total',
      help: 'Domain events consumed from the broker, by type',
      labelNames: ['type'] as const,
      registers: [registry],
    });
    // Queue depth and age are read from the database at scrape time, so every replica reports the shared queue.
    let latest: Promise<QueueStats> | undefined;
    const stats = () => (latest ??= queueStats().finally(() => setTimeout(() => (latest = undefined), 100).unref()));
    new Gauge({
      name: 'webhook_pending_deliveries',
      help: 'Deliveries waiting for their first attempt or a retry',
      registers: [registry],
      async collect() {
        this.set((await stats()).pending);
      },
    });
    new Gauge({
      name: 'webhook_oldest_pending_delivery_age_seconds',
      help: 'Age of the oldest pending delivery (0 when none)',
      registers: [registry],
      async collect() {
        const { oldestPendingAt } = await stats();
        this.set(oldestPendingAt ? (Date.now() - oldestPendingAt.getTime()) / 1000 : 0);
      },
    });
  }

  recordAttempt(outcome: AttemptOutcome, latencyMs: number): void {
    this.attempts.inc({ outcome });
    this.attemptDuration.observe({ outcome }, latencyMs / 1000);
  }
}
