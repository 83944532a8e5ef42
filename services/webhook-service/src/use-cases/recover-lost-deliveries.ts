import { randomUUID } from 'node:crypto';
import { attemptDue } from '../domain/attempt-message.js';
import type { WebhookDeps } from './delivery-deps.js';

const BATCH = 500;

/**
 * The slow sweep of the delivery log: a pending delivery that was due more
 * than `lostAfterMs` ago has lost its message (the broker was wiped, a delay
 * queue was deleted). It gets a new message under a new dispatch token, so
 * the old one, should it turn up after all, is dropped. Returns how many.
 */
export async function recoverLostDeliveries(deps: WebhookDeps): Promise<number> {
  const now = deps.now();
  const overdue = await deps.deliveries.overdue(new Date(now.getTime() - deps.policy.lostAfterMs), BATCH);
  let recovered = 0;
  for (const { _id } of overdue) {
    await deps.deliveries.change(_id, (current) => {
      if (current.status !== 'pending' || !current.next_attempt_at || now.getTime() - current.next_attempt_at.getTime() < deps.policy.lostAfterMs)
        return null;
      recovered++;
      const dispatch_token = randomUUID();
      return { set: { next_attempt_at: now, dispatch_token, updated_at: now }, events: [attemptDue({ ...current, dispatch_token })] };
    });
  }
  if (recovered > 0) deps.log.warn({ recovered }, 'pending deliveries whose message was lost put back on the work queue');
  return recovered;
}
