import { expire } from '../domain/flight-request/changes.js';
import type { UseCaseDeps } from './deps.js';

const BATCH = 200;

/**
 * PRODUCT.md: a Pending request whose start time passes undecided becomes
 * Expired and its pending items are withdrawn. Each write is conditional on
 * the version read, so several replicas may sweep at once and a decision
 * racing the sweep either lands first (the request is no longer Pending) or
 * finds the request Expired.
 */
export async function expirePendingRequests(deps: UseCaseDeps): Promise<number> {
  let expired = 0;
  for (;;) {
    const now = deps.now();
    const overdue = await deps.requests.overdue(now, BATCH);
    let changed = 0;
    for (const request of overdue) if (await expireOne(deps, request._id, now)) changed++;
    expired += changed;
    // A batch where every request was taken by someone else would repeat forever; the next sweep looks again.
    if (overdue.length < BATCH || changed === 0) return expired;
  }
}

async function expireOne(deps: UseCaseDeps, uuid: string, now: Date): Promise<boolean> {
  let expired = false;
  await deps.requests.change(uuid, (current) => {
    const change = expire(current, now);
    expired = change !== null;
    return change;
  });
  if (expired) deps.metrics.requestsByStatus.inc({ status: 'Expired' });
  return expired;
}
