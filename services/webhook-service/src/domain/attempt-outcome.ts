import { nextRetryDelay, type Random } from './retry-schedule.js';
import { parseRetryAfter } from './retry-after.js';
import { freeFormDelay } from './delay-queues.js';

/** What one HTTP attempt produced; statusCode null = no answer (refused, timed out, blocked). */
export interface AttemptResult {
  statusCode: number | null;
  retryAfter: string | null;
}

export interface RetryPolicy {
  schedule: readonly number[];
  maxRetryAfterMs: number;
}

export type AttemptDecision =
  | { outcome: 'succeeded' }
  /** 410 Gone: the receiver says the endpoint is no more; it is disabled and nothing is retried. */
  | { outcome: 'gone' }
  | { outcome: 'retry'; delayMs: number }
  | { outcome: 'failed' };

/**
 * Only 2xx is a success. Redirects are failures (never followed: a redirect
 * could point anywhere, including inside our network). 429 and 503 may name
 * their own wait in Retry-After, which replaces the scheduled delay (capped,
 * and rounded up to a delay queue's step: never earlier than asked).
 */
export function decideAfterAttempt(
  result: AttemptResult,
  attemptsMadeInRound: number,
  policy: RetryPolicy,
  now: Date,
  random?: Random,
): AttemptDecision {
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) return { outcome: 'succeeded' };
  if (status === 410) return { outcome: 'gone' };
  const scheduled = nextRetryDelay(policy.schedule, attemptsMadeInRound, random);
  if (scheduled === undefined) return { outcome: 'failed' };
  const asked = status === 429 || status === 503 ? parseRetryAfter(result.retryAfter, now) : undefined;
  const delayMs = asked === undefined ? scheduled : freeFormDelay(Math.min(asked, policy.maxRetryAfterMs));
  return { outcome: 'retry', delayMs };
}

/** Why an answer that came back was not a success, for the delivery log. */
export function describeFailedStatus(status: number): string {
  if (status >= 300 && status < 400) return `Redirect (${status}) not followed: only 2xx counts as delivered.`;
  if (status === 410) return 'The endpoint answered 410 Gone; it has been disabled.';
  return `The endpoint answered ${status}; only 2xx counts as delivered.`;
}
