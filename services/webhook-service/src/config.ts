import { Type, type Static } from '@sinclair/typebox';
import { amqpConfig, commonConfig, ConfigError, internalTokenVerifyConfig, loadConfig, mongoConfig } from '@dfc/kit/config';
import { queueName } from '@dfc/kit/broker';
import { Queues } from './messaging.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * What shutdown needs after the slowest attempt's answer: recording it, scheduling its retry on the
 * broker and acking it. An attempt cut off by the grace period is sent again by another replica.
 */
const SHUTDOWN_MARGIN_MS = 5_000;
const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** 32 bytes, base64 or base64url. */
const SECRET_KEY_PATTERN = '^[A-Za-z0-9+/_-]{43}=?$';
const positiveMs = (defaultMs: number) => Type.Integer({ minimum: 1, default: defaultMs });

export const WebhookServiceConfig = Type.Object({
  ...commonConfig,
  ...mongoConfig,
  ...amqpConfig,
  ...internalTokenVerifyConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8083 }),
  MONGO_DB: Type.String({ minLength: 1, default: 'dfc_webhooks' }),
  /** How long shutdown may take after SIGTERM; webhook-service: at least WEBHOOK_TIMEOUT_MS + 5 s, so that attempts under way finish and are recorded. */
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: DEFAULT_WEBHOOK_TIMEOUT_MS + SHUTDOWN_MARGIN_MS }),
  /** AES-256-GCM key for the signing secrets at rest: 32 random bytes, base64 (or base64url). */
  WEBHOOK_SECRET_KEY: Type.String({ pattern: SECRET_KEY_PATTERN }),
  /**
   * During a rotation of WEBHOOK_SECRET_KEY, a second key that opens secrets but never seals them:
   * first the incoming key (so replicas not yet switched read what switched ones seal), then the
   * outgoing one until reencrypt-secrets has moved every secret onto the new key.
   */
  WEBHOOK_SECRET_KEY_DECRYPT_ONLY: Type.Optional(Type.String({ pattern: SECRET_KEY_PATTERN })),
  WEBHOOK_TIMEOUT_MS: positiveMs(DEFAULT_WEBHOOK_TIMEOUT_MS),
  /** Delays before the 2nd, 3rd, … attempt; after the last one the delivery is failed. */
  WEBHOOK_RETRY_SCHEDULE_MS: Type.String({
    pattern: '^\\d+(,\\d+)*$',
    default: '5000,300000,1800000,7200000,18000000,36000000,36000000',
  }),
  /** Longest wait a receiver may ask for with Retry-After (429/503). */
  WEBHOOK_MAX_RETRY_AFTER_MS: positiveMs(DAY_MS),
  /** An endpoint with nothing but failures for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: positiveMs(5 * DAY_MS),
  /** After a rotation the old secret keeps signing for this long. */
  WEBHOOK_SECRET_OVERLAP_MS: Type.Integer({ minimum: 0, default: DAY_MS }),
  /** Requests to one endpoint under way at once, per replica (README: "Concurrency"). */
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: Type.Integer({ minimum: 1, default: 4 }),
  /** Attempts under way at once in this replica (the work queue's prefetch, and its limit on attempts of messages carrying several). */
  WEBHOOK_MAX_IN_FLIGHT: Type.Integer({ minimum: 1, default: 64 }),
  /** Consecutive failed attempts (timeouts included) that put an endpoint in cool-off. */
  WEBHOOK_COOL_OFF_AFTER_FAILURES: Type.Integer({ minimum: 1, default: 5 }),
  /** How long an endpoint in cool-off is left alone; its deliveries wait meanwhile. */
  WEBHOOK_COOL_OFF_MS: positiveMs(60_000),
  /** A pending delivery due this long ago whose message never came is put back on the work queue. */
  WEBHOOK_LOST_AFTER_MS: positiveMs(30 * 60_000),
  /** How often the delivery log is swept for such deliveries. */
  WEBHOOK_LOST_SWEEP_INTERVAL_MS: positiveMs(5 * 60_000),
  /**
   * Days a delivery, with the body it sends, is kept after its last change (a TTL index; README: "Retention").
   * A pending delivery changes at least once per retry delay, so it is never deleted while it still waits.
   */
  WEBHOOK_DELIVERY_TTL_DAYS: Type.Number({ exclusiveMinimum: 0, default: 30 }),
  /** Days an attempt of the delivery log is kept after it was made (a TTL index). */
  WEBHOOK_ATTEMPT_TTL_DAYS: Type.Number({ exclusiveMinimum: 0, default: 30 }),
  /** Endpoints one operator may hold: every one of them multiplies each of its events into a delivery. */
  WEBHOOK_MAX_ENDPOINTS_PER_OPERATOR: Type.Integer({ minimum: 1, default: 20 }),
  ALLOW_HTTP_WEBHOOKS: Type.Boolean({ default: false }),
  /**
   * Development only: lets endpoints point at loopback addresses (127.0.0.0/8, ::1). Every other
   * non-public address (private, link-local, cloud metadata, …) stays refused whatever this says.
   */
  ALLOW_LOOPBACK_WEBHOOK_TARGETS: Type.Boolean({ default: false }),
  /**
   * The consumer queue. Defaults to `webhook-service.events` on the default exchange and to
   * `<exchange>.webhook-service.events` on any other, so systems started side by side with their
   * own exchanges (tests, e2e) never share a queue.
   */
  EVENTS_QUEUE: Type.Optional(Type.String({ minLength: 1 })),
});
export type WebhookServiceConfig = Static<typeof WebhookServiceConfig>;

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookServiceConfig {
  const config = loadConfig(WebhookServiceConfig, env);
  if (config.SHUTDOWN_GRACE_MS < config.WEBHOOK_TIMEOUT_MS + SHUTDOWN_MARGIN_MS) {
    throw new ConfigError([
      `SHUTDOWN_GRACE_MS (${config.SHUTDOWN_GRACE_MS}) must be at least WEBHOOK_TIMEOUT_MS (${config.WEBHOOK_TIMEOUT_MS}) + ${SHUTDOWN_MARGIN_MS}: ` +
        'an attempt under way at SIGTERM would be cut off and sent again',
    ]);
  }
  const longestWaitMs =
    Math.max(config.WEBHOOK_MAX_RETRY_AFTER_MS, ...config.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number)) + config.WEBHOOK_LOST_AFTER_MS;
  if (config.WEBHOOK_DELIVERY_TTL_DAYS * DAY_MS <= longestWaitMs) {
    throw new ConfigError([
      `WEBHOOK_DELIVERY_TTL_DAYS (${config.WEBHOOK_DELIVERY_TTL_DAYS}) must be longer than the longest wait of a pending delivery ` +
        `(${Math.ceil(longestWaitMs / 60_000)} minutes): it would be deleted while it still waits`,
    ]);
  }
  return config;
}

/** The retention the TTL indexes are built with. */
export interface Retention {
  deliverySeconds: number;
  attemptSeconds: number;
}

export function retentionOf(config: Pick<WebhookServiceConfig, 'WEBHOOK_DELIVERY_TTL_DAYS' | 'WEBHOOK_ATTEMPT_TTL_DAYS'>): Retention {
  return {
    deliverySeconds: Math.round(config.WEBHOOK_DELIVERY_TTL_DAYS * 86_400),
    attemptSeconds: Math.round(config.WEBHOOK_ATTEMPT_TTL_DAYS * 86_400),
  };
}

/** The config keys the index migration reads besides the database's. */
export const RETENTION_SETTINGS = ['WEBHOOK_DELIVERY_TTL_DAYS', 'WEBHOOK_ATTEMPT_TTL_DAYS'] as const;

/** The work queue of delivery attempts, shared by every replica. */
export function attemptsQueueName(config: Pick<WebhookServiceConfig, 'AMQP_EXCHANGE'>): string {
  return queueName(config.AMQP_EXCHANGE, Queues.attempts);
}

export function eventsQueueName(config: Pick<WebhookServiceConfig, 'EVENTS_QUEUE' | 'AMQP_EXCHANGE'>): string {
  if (config.EVENTS_QUEUE) return config.EVENTS_QUEUE;
  return queueName(config.AMQP_EXCHANGE, Queues.events);
}
