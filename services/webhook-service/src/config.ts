import { Type, type Static } from '@sinclair/typebox';
import { amqpConfig, commonConfig, internalTokenVerifyConfig, loadConfig, mongoConfig } from '@dfc/kit/config';
import { queueName } from '@dfc/kit/broker';

const DAY_MS = 24 * 60 * 60 * 1000;
const positiveMs = (defaultMs: number) => Type.Integer({ minimum: 1, default: defaultMs });

export const WebhookServiceConfig = Type.Object({
  ...commonConfig,
  ...mongoConfig,
  ...amqpConfig,
  ...internalTokenVerifyConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8083 }),
  MONGO_DB: Type.String({ minLength: 1, default: 'dfc_webhooks' }),
  /** AES-256-GCM key for the signing secrets at rest: 32 random bytes, base64 (or base64url). */
  WEBHOOK_SECRET_KEY: Type.String({ pattern: '^[A-Za-z0-9+/_-]{43}=?$' }),
  WEBHOOK_TIMEOUT_MS: positiveMs(10_000),
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
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: Type.Integer({ minimum: 1, default: 4 }),
  WEBHOOK_MAX_IN_FLIGHT: Type.Integer({ minimum: 1, default: 64 }),
  ALLOW_HTTP_WEBHOOKS: Type.Boolean({ default: false }),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: Type.Boolean({ default: false }),
  /** How often due retries are looked for (new events and retries known to this replica are sent at once). */
  DISPATCH_POLL_INTERVAL_MS: positiveMs(1000),
  /**
   * The consumer queue. Defaults to `webhook-service.events` on the default exchange and to
   * `<exchange>.webhook-service.events` on any other, so systems started side by side with their
   * own exchanges (tests, e2e) never share a queue.
   */
  EVENTS_QUEUE: Type.Optional(Type.String({ minLength: 1 })),
});
export type WebhookServiceConfig = Static<typeof WebhookServiceConfig>;

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookServiceConfig {
  return loadConfig(WebhookServiceConfig, env);
}

export function eventsQueueName(config: Pick<WebhookServiceConfig, 'EVENTS_QUEUE' | 'AMQP_EXCHANGE'>): string {
  if (config.EVENTS_QUEUE) return config.EVENTS_QUEUE;
  return queueName(config.AMQP_EXCHANGE, 'webhook-service.events');
}
