import { InternalTokenVerifier } from '@dfc/kit/http';
import { OutboxRelay } from '@dfc/kit/outbox';
import { expireAsTtlWould, Lease, TTL_MONITOR_INTERVAL_MS, verifyIndexes } from '@dfc/kit/db';
import { dependencyReadiness, repeatEvery, type PeriodicJob, type Service, type ServiceResources } from '@dfc/kit/service';
import { buildApp } from './app.js';
import { attemptsQueueName, eventsQueueName, retentionOf, type WebhookServiceConfig } from './config.js';
import { parseRetrySchedule } from './domain/retry-schedule.js';
import { SecretBox } from './domain/secret-box.js';
import { brokerScheduler, consumeAttempts } from './events/attempt-consumer.js';
import { EndpointSlots } from './events/endpoint-slots.js';
import { consumeWebhookEvents } from './events/event-consumer.js';
import { WebhookMetrics } from './metrics.js';
import { WebhookSender } from './sending/http-sender.js';
import { attemptModel } from './store/attempt-model.js';
import { deliveryModel } from './store/delivery-model.js';
import { DeliveryStore } from './store/delivery-store.js';
import { webhookEndpointModel } from './store/endpoint-model.js';
import { EndpointStore } from './store/endpoint-store.js';
import { endpointSlotModel } from './store/endpoint-slot-model.js';
import { EndpointSlotStore } from './store/endpoint-slot-store.js';
import { attemptDelivery } from './use-cases/attempt-delivery.js';
import type { WebhookDeps } from './use-cases/delivery-deps.js';
import { fanOutEvent } from './use-cases/fan-out-event.js';
import { recoverLostDeliveries } from './use-cases/recover-lost-deliveries.js';

/**
 * What a request in an endpoint's slot may take besides the POST itself (reading the delivery and
 * the endpoint), and the clock difference between replicas a slot's hold allows for.
 */
const SLOT_READS_MS = 5_000;
const SLOT_CLOCK_MARGIN_MS = 5_000;

/** Where the count of attempts waiting stops: far above any replica count times the window, so the autoscaler reads it as "many". */
const ATTEMPTS_WAITING_CAP = 100_000;

export interface WebhookService extends Service {
  deps: WebhookDeps;
}

/** Wires the service on an open database connection and broker; used by main.ts and by the tests. */
export function createWebhookService(resources: ServiceResources<WebhookServiceConfig>): WebhookService {
  const { config, connection, broker, log, registry } = resources;
  const now = resources.now ?? (() => new Date());
  const relay = new OutboxRelay(broker, log, { registry });
  const endpoints = new EndpointStore(webhookEndpointModel(connection), relay);
  const retention = retentionOf(config);
  const deliveries = new DeliveryStore(
    deliveryModel(connection, retention.deliverySeconds),
    attemptModel(connection, retention.attemptSeconds),
    relay,
  );
  const sender = new WebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowLoopbackTargets: config.ALLOW_LOOPBACK_WEBHOOK_TARGETS });
  const scheduler = brokerScheduler(broker);
  // A hold outlasts the longest request in its slot, with the clock margin on either side.
  const slotWorkMs = config.WEBHOOK_TIMEOUT_MS + SLOT_READS_MS;
  const slotStore = new EndpointSlotStore(endpointSlotModel(connection), slotWorkMs + 2 * SLOT_CLOCK_MARGIN_MS, SLOT_CLOCK_MARGIN_MS, now);
  const deps: WebhookDeps = {
    endpoints,
    deliveries,
    sender,
    scheduler,
    slots: EndpointSlots.forReplica(slotStore, config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, config.WEBHOOK_MAX_IN_FLIGHT, slotWorkMs),
    secretBox: new SecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEY_DECRYPT_ONLY ? [config.WEBHOOK_SECRET_KEY_DECRYPT_ONLY] : []),
    metrics: new WebhookMetrics(registry, {
      oldestDueAt: () => deliveries.oldestDueAt(now()),
      coolingEndpoints: () => endpoints.countCooling(now()),
      attemptsWaiting: () => deliveries.countDue(now(), ATTEMPTS_WAITING_CAP),
    }),
    log,
    policy: {
      retry: { schedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE_MS), maxRetryAfterMs: config.WEBHOOK_MAX_RETRY_AFTER_MS },
      health: {
        coolOffAfterFailures: config.WEBHOOK_COOL_OFF_AFTER_FAILURES,
        coolOffMs: config.WEBHOOK_COOL_OFF_MS,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      },
      secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS,
      allowHttp: config.ALLOW_HTTP_WEBHOOKS,
      allowLoopbackTargets: config.ALLOW_LOOPBACK_WEBHOOK_TARGETS,
      lostAfterMs: config.WEBHOOK_LOST_AFTER_MS,
      maxEndpointsPerOperator: config.WEBHOOK_MAX_ENDPOINTS_PER_OPERATOR,
    },
    now,
  };
  const app = buildApp({
    log,
    registry,
    verifier: new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY),
    readiness: dependencyReadiness(resources),
    webhooks: deps,
  });
  // Held from one round to the next by the replica that took it, lasting two rounds so its next one renews it in time.
  const sweepLease = new Lease(connection, 'lost-delivery-sweep', { ttlMs: 2 * config.WEBHOOK_LOST_SWEEP_INTERVAL_MS });
  let sweep: PeriodicJob | undefined;
  let expiry: PeriodicJob | undefined;
  let attempts: { drain(): Promise<void> } | undefined;
  return {
    app,
    deps,
    async start() {
      await verifyIndexes(connection);
      relay.start();
      sweep = repeatEvery(
        'lost-delivery sweep',
        config.WEBHOOK_LOST_SWEEP_INTERVAL_MS,
        () => sweepLease.runIfHeld(() => recoverLostDeliveries(deps)),
        log,
      );
      expiry = repeatEvery('retention expiry', TTL_MONITOR_INTERVAL_MS, () => expireAsTtlWould(connection), log);
      attempts = await consumeAttempts(broker, {
        queue: attemptsQueueName(config),
        prefetch: config.WEBHOOK_MAX_IN_FLIGHT,
        log,
        attempt: (message, redelivered) => attemptDelivery(deps, message, redelivered),
      });
      await consumeWebhookEvents(broker, eventsQueueName(config), async (event, redelivered) => {
        deps.metrics.eventsConsumed.inc({ type: event.type });
        await fanOutEvent(deps, event, redelivered);
      });
    },
    async stop() {
      await attempts?.drain();
      await sweep?.stop();
      await expiry?.stop();
      // The next replica to try sweeps at once rather than when the lease lapses.
      await sweepLease.release().catch(() => undefined);
      await relay.stop();
      sender.close();
    },
  };
}
