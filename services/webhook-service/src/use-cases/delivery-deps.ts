import type { Logger } from '@dfc/kit/logging';
import type { EventEnvelope } from '@dfc/contracts';
import type { AttemptDue } from '../domain/attempt-message.js';
import type { RetryPolicy } from '../domain/attempt-outcome.js';
import type { HealthPolicy } from '../domain/endpoint-health.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { EndpointSlots } from '../events/endpoint-slots.js';
import type { WebhookSender } from '../sending/http-sender.js';
import type { WebhookMetrics } from '../metrics.js';
import type { DeliveryStore } from '../store/delivery-store.js';
import type { EndpointStore } from '../store/endpoint-store.js';

/** Puts attempt messages on the work queue. */
export interface AttemptScheduler {
  /**
   * Now, one event's messages, in one broker message shared with those of
   * events handed over at the same moment; resolves once the broker has them.
   */
  now(messages: EventEnvelope<AttemptDue>[]): Promise<void>;
  /** After `delayMs` (a durable delay queue on the broker), as given (the caller names the delivery alone: `withoutCreated`, `afterBusy`). */
  later(message: EventEnvelope<AttemptDue>, delayMs: number): Promise<void>;
}

/** What the use cases work with; built once in service.ts. */
export interface WebhookDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  secretBox: SecretBox;
  sender: WebhookSender;
  scheduler: AttemptScheduler;
  /** The per-endpoint limit on requests under way, across the replicas. */
  slots: EndpointSlots;
  metrics: WebhookMetrics;
  log: Logger;
  policy: WebhookPolicy;
  now: () => Date;
}

export interface WebhookPolicy {
  retry: RetryPolicy;
  health: HealthPolicy;
  secretOverlapMs: number;
  allowHttp: boolean;
  allowLoopbackTargets: boolean;
  /** A pending delivery due this long ago without its message arriving is put back (see recoverLostDeliveries). */
  lostAfterMs: number;
  /** WEBHOOK_MAX_ENDPOINTS_PER_OPERATOR: the fan-out one operator's event may cause. */
  maxEndpointsPerOperator: number;
}
