import type { Logger } from '@dfc/kit/logging';
import type { RetryPolicy } from '../domain/attempt-outcome.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { WebhookSender } from '../dispatch/http-sender.js';
import type { WebhookMetrics } from '../metrics.js';
import type { DeliveryStore } from '../store/delivery-store.js';
import type { EndpointStore } from '../store/endpoint-store.js';
import type { SuccessWriter } from '../store/success-writer.js';

/** What the use cases work with; built once in service.ts. */
export interface WebhookDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  /** Records successful attempts in batches. */
  successes: SuccessWriter;
  secretBox: SecretBox;
  sender: WebhookSender;
  metrics: WebhookMetrics;
  log: Logger;
  policy: WebhookPolicy;
  /** The dispatcher: woken when work is due now, or handed deliveries this replica just created. */
  dispatch: Pick<Dispatcher, 'kick' | 'hasRoomFor' | 'handOver'>;
  /**
   * Endpoints this replica saw fail since their last success here. A success
   * clears the failing streak in the database only when one may exist, which
   * spares a write per delivery on healthy endpoints.
   */
  failingEndpoints: Set<string>;
  now: () => Date;
}

export interface WebhookPolicy {
  retry: RetryPolicy;
  disableAfterMs: number;
  secretOverlapMs: number;
  /** How long a delivery's claim holds (see Dispatcher). */
  leaseMs: number;
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}
