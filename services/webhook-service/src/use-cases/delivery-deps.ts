import type { Logger } from '@dfc/kit';
import type { RetryPolicy } from '../domain/attempt-outcome.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { WebhookSender } from '../dispatch/http-sender.js';
import type { WebhookMetrics } from '../metrics.js';
import type { DeliveryStore } from '../store/delivery-store.js';
import type { EndpointStore } from '../store/endpoint-store.js';

/** What the use cases work with; built once in service.ts. */
export interface WebhookDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  secretBox: SecretBox;
  sender: WebhookSender;
  metrics: WebhookMetrics;
  log: Logger;
  policy: WebhookPolicy;
  /** Wakes the dispatcher: new work is due now. */
  notifyDispatcher: () => void;
  now: () => Date;
}

export interface WebhookPolicy {
  retry: RetryPolicy;
  disableAfterMs: number;
  secretOverlapMs: number;
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}
