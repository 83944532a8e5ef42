import { closeWindow } from '../domain/flight-request/changes.js';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import { releaseAirspace } from './deconfliction/reserve-airspace.js';
import type { UseCaseDeps } from './deps.js';

const BATCH = 200;

/**
 * The window-close sweep: an Approved flight whose window has closed without
 * being activated, and an Activated one still open a grace period after its
 * window, become Ended; each write frees the airspace it held, and the ledger
 * cells are tidied after. Every write is conditional on the version read, so
 * replicas may sweep at once and an operator's own end or activation racing
 * the sweep either lands first or finds the flight Ended.
 */
export async function endClosedFlights(deps: UseCaseDeps): Promise<number> {
  let ended = 0;
  for (;;) {
    const now = deps.now();
    const closed = await deps.requests.windowClosed(now, deps.activationEndGraceMs, BATCH);
    let changed = 0;
    for (const request of closed) if (await endOne(deps, request._id, now)) changed++;
    ended += changed;
    // A batch taken entirely by someone else would repeat forever; the next sweep looks again.
    if (closed.length < BATCH || changed === 0) return ended;
  }
}

async function endOne(deps: UseCaseDeps, uuid: string, now: Date): Promise<boolean> {
  let ended = false;
  let freed: Deconfliction | null = null;
  await deps.requests.change(uuid, (current) => {
    const change = closeWindow(current, now, deps.activationEndGraceMs);
    ended = change !== null;
    freed = change ? (current.deconfliction ?? null) : null;
    return change;
  });
  if (!ended) return false;
  deps.metrics.requestsByStatus.inc({ status: 'Ended' });
  const released = freed as Deconfliction | null;
  if (released) await releaseAirspace(deps, released.claim);
  return true;
}
