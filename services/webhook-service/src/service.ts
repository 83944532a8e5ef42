import type Koa from 'koa';
import type { Connection } from 'mongoose';
import { createMetricsRegistry, InternalTokenVerifier, mongoReady, type Broker, type Logger } from '@dfc/kit';
import { buildApp } from './app.js';
import { eventsQueueName, type WebhookServiceConfig } from './config.js';
import { parseRetrySchedule } from './domain/retry-schedule.js';
import { SecretBox } from './domain/secret-box.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { WebhookSender } from './dispatch/http-sender.js';
import { consumeWebhookEvents } from './events/event-consumer.js';
import { WebhookMetrics } from './metrics.js';
import { deliveryModel } from './store/delivery-model.js';
import { DeliveryStore } from './store/delivery-store.js';
import { webhookEndpointModel } from './store/endpoint-model.js';
import { EndpointStore } from './store/endpoint-store.js';
import { attemptDelivery } from './use-cases/attempt-delivery.js';
import type { WebhookDeps } from './use-cases/delivery-deps.js';
import { fanOutEvent } from './use-cases/fan-out-event.js';

export interface WebhookService {
  app: Koa;
  deps: WebhookDeps;
  dispatcher: Dispatcher;
  /** Starts consuming events and dispatching deliveries. */
  start(): Promise<void>;
  /** Stops dispatching (attempts under way finish) and drops idle connections to receivers. */
  stop(): Promise<void>;
}

/** A lease outlives any attempt (the timeout) by a margin, so only a dead replica's claims expire. */
const LEASE_MARGIN_MS = 30_000;

/** Wires the service on an open database connection and broker; used by main.ts and by the tests. */
export function createWebhookService(config: WebhookServiceConfig, connection: Connection, broker: Broker, log: Logger): WebhookService {
  const registry = createMetricsRegistry('webhook-service');
  const endpoints = new EndpointStore(webhookEndpointModel(connection));
  const deliveries = new DeliveryStore(deliveryModel(connection));
  const sender = new WebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: config.ALLOW_PRIVATE_WEBHOOK_TARGETS });
  let dispatcher: Dispatcher | undefined;
  const deps: WebhookDeps = {
    endpoints,
    deliveries,
    sender,
    secretBox: new SecretBox(config.WEBHOOK_SECRET_KEY),
    metrics: new WebhookMetrics(registry, () => deliveries.queueStats()),
    log,
    policy: {
      retry: { schedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE_MS), maxRetryAfterMs: config.WEBHOOK_MAX_RETRY_AFTER_MS },
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS,
      allowHttp: config.ALLOW_HTTP_WEBHOOKS,
      allowPrivateTargets: config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
    },
    notifyDispatcher: () => dispatcher?.kick(),
    now: () => new Date(),
  };
  dispatcher = new Dispatcher(
    deliveries,
    (delivery) => attemptDelivery(deps, delivery),
    {
      pollIntervalMs: config.DISPATCH_POLL_INTERVAL_MS,
      maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
      maxInFlightPerEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      leaseMs: config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
    },
    log,
  );
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
  const running = dispatcher;
  return {
    app,
    deps,
    dispatcher: running,
    async start() {
      await consumeWebhookEvents(broker, eventsQueueName(config), async (event) => {
        deps.metrics.eventsConsumed.inc({ type: event.type });
        await fanOutEvent(deps, event);
      });
      running.start();
    },
    async stop() {
      await running.stop();
      sender.close();
    },
  };
}
