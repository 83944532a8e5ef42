import { FINAL_STATUSES } from '../domain/state-machine/transitions.js';
import type { UseCaseDeps } from './deps.js';

const BATCH = 200;
const DAY_MS = 86_400_000;

/**
 * Retention: a request `retentionDays` after its final status (its last change) is deleted
 * with what exists only for it: its review-queue rows and the Idempotency-Key claims naming
 * it. Those go first, so a round cut short leaves the request to be found by the next one.
 * Every step is a delete by indexed fields of documents that no longer change, so replicas
 * sweeping at once only repeat each other's deletes.
 */
export async function purgeFinalRequests(deps: UseCaseDeps, retentionDays: number): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - retentionDays * DAY_MS);
  let purged = 0;
  for (const status of FINAL_STATUSES) {
    for (;;) {
      const uuids = await deps.requests.finalBefore(status, cutoff, BATCH);
      if (uuids.length === 0) break;
      await deps.reviewQueue.removeForRequests(uuids);
      await deps.idempotencyKeys.removeForRequests(uuids);
      purged += await deps.requests.purge(uuids);
      if (uuids.length < BATCH) break;
    }
  }
  return purged;
}
