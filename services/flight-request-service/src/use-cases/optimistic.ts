import { ConflictError } from '@dfc/kit/errors';

const ATTEMPTS = 10;

/**
 * Runs read → decide → conditional write until the write lands. An attempt
 * returns undefined when another change slipped in between its read and its
 * write; the next attempt decides again on the fresh state, which may now
 * refuse the change (its 409 or 404 propagates).
 */
export async function untilUnchanged<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let round = 0; round < ATTEMPTS; round++) {
    const result = await attempt();
    if (result !== undefined) return result;
  }
  throw new ConflictError('The flight request is being changed by someone else; try again.');
}
