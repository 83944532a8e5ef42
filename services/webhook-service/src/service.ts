import { InternalTokenVerifier } from '@dfc/kit/http';
import { mongoReady, verifyIndexes } from '@dfc/kit/db';
import type { Service, ServiceResources } from '@dfc/kit/service';
import { buildApp } from './app.js';
import { eventsQueueName, type WebhookServiceConfig } from './config.js';
import { parseRetrySchedule } from './domain/retry-schedule.js';
import { SecretBox } from './domain/secret-box.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { WebhookSender } from './dispatch/http-sender.js';
import { consumeWebhookEvents } from './events/event-consumer.js';
import { WebhookMetrics } from './metrics.js';
import { attemptModel } from './store/attempt-model.js';
import { deliveryModel } from './store/delivery-model.js';
import { DeliveryStore } from './store/delivery-store.js';
import { webhookEndpointModel } from './store/endpoint-model.js';
import { EndpointStore } from './store/endpoint-store.js';
import { SuccessWriter } from './store/success-writer.js';
import { attemptDelivery } from './use-cases/attempt-delivery.js';
import type { WebhookDeps } from './use-cases/delivery-deps.js';
import { fanOutEvent } from './use-cases/fan-out-event.js';

export interface WebhookService extends Service {
  deps: WebhookDeps;
  dispatcher: Dispatcher;
}

/** A lease outlives any attempt (the timeout) by a margin, so only a dead replica's claims expire. */
const LEASE_MARGIN_MS = 30_000;
/** New deliveries waiting in memory for a free slot; past this they wait in the database for the poll. */
const MAX_QUEUED_IN_MEMORY = 1000;

/** Wires the service on an open database connection and broker; used by main.ts and by the tests. */
export function createWebhookService(resources: ServiceResources<WebhookServiceConfig>): WebhookService {
  const { config, connection, broker, log, registry } = resources;
  const endpoints = new EndpointStore(webhookEndpointModel(connection));
  const deliveries = new DeliveryStore(deliveryModel(connection), attemptModel(connection));
  const sender = new WebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: config.ALLOW_PRIVATE_WEBHOOK_TARGETS });
  const successes = new SuccessWriter(deliveries, log);
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  const dispatcher = new Dispatcher(
    deliveries,
    (work) => attemptDelivery(deps, work),
    {
      pollIntervalMs: config.DISPATCH_POLL_INTERVAL_MS,
      maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
      maxInFlightPerEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      leaseMs,
      attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      maxQueued: MAX_QUEUED_IN_MEMORY,
    },
    log,
  );
  const deps: WebhookDeps = {
    endpoints,
    deliveries,
    successes,
    sender,
    secretBox: new SecretBox(config.WEBHOOK_SECRET_KEY),
    metrics: new WebhookMetrics(registry, () => deliveries.queueStats()),
    log,
    policy: {
      retry: { schedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE_MS), maxRetryAfterMs: config.WEBHOOK_MAX_RETRY_AFTER_MS },
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS,
      leaseMs,
      allowHttp: config.ALLOW_HTTP_WEBHOOKS,
      allowPrivateTargets: config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
    },
    dispatch: dispatcher,
    failingEndpoints: new Set(),
    now: () => new Date(),
  };
  const app = buildApp({
    log,
    registry,
    verifier: new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY),
    readiness: [
      { name: 'mongo', ready: () => mongoReady(connection) },
      { name: 'broker', ready: () => broker.isConnected() },
    ],
    webhooks: deps,
  });
  return {
    app,
    deps,
    dispatcher,
    async start() {
      await verifyIndexes(connection);
      dispatcher.start();
      await consumeWebhookEvents(broker, eventsQueueName(config), async (event) => {
        deps.metrics.eventsConsumed.inc({ type: event.type });
        await fanOutEvent(deps, event);
      });
    },
    async stop() {
      await dispatcher.stop();
      await successes.flush();
      sender.close();
    },
  };
}
