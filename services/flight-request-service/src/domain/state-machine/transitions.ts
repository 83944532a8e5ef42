import { ConflictError } from '@dfc/kit/errors';
import type { FlightRequestStatus } from '@dfc/contracts';

/**
 * PRODUCT.md "States": where each status may go. Rejected, Cancelled, Expired
 * and Rescinded lead nowhere; an approval is rescinded when a zone created or
 * changed after it prohibits the flight, and suspended when a new
 * authorisation zone puts it back under that authority's review: the
 * authority's decision (or the zone being lifted) ends the suspension.
 */
const ALLOWED: Record<FlightRequestStatus, readonly FlightRequestStatus[]> = {
  Pending: ['Approved', 'Rejected', 'Cancelled', 'Expired'],
  Approved: ['Cancelled', 'Rescinded', 'Suspended'],
  Suspended: ['Approved', 'Rejected', 'Cancelled', 'Rescinded'],
  Rejected: [],
  Cancelled: [],
  Expired: [],
  Rescinded: [],
};

/**
 * The statuses a zone created or changed can still affect while the flight window has not ended: one list, so
 * that every status added later (an activated flight) is screened again by naming it here.
 */
export const LIVE_STATUSES: readonly FlightRequestStatus[] = ['Pending', 'Approved', 'Suspended'];

/** The verb a 409 uses for the refused target ("cannot be cancelled"). */
const VERB: Record<FlightRequestStatus, string> = {
  Pending: 'made pending again',
  Approved: 'approved',
  Rejected: 'rejected',
  Cancelled: 'cancelled',
  Expired: 'expired',
  Rescinded: 'rescinded',
  Suspended: 'suspended',
};

export interface StatusHistoryEntry {
  status: FlightRequestStatus;
  at: Date;
  /** operator, admin, screening, reviewer:<authority>, system */
  actor: string;
  reason: string | null;
}

export interface TransitionContext {
  actor: string;
  reason: string | null;
  at: Date;
}

export function isFinal(status: FlightRequestStatus): boolean {
  return ALLOWED[status].length === 0;
}

/** The statuses a request never leaves. */
export const FINAL_STATUSES = (Object.keys(ALLOWED) as FlightRequestStatus[]).filter(isFinal);

export function canTransition(current: FlightRequestStatus, target: FlightRequestStatus): boolean {
  return ALLOWED[current].includes(target);
}

/** The history entry of a legal change, or a 409 that says why the change is refused. */
export function transition(current: FlightRequestStatus, target: FlightRequestStatus, context: TransitionContext): StatusHistoryEntry {
  if (!canTransition(current, target)) {
    throw new ConflictError(`${article(current)} ${current} flight request cannot be ${VERB[target]}.`);
  }
  return { status: target, at: context.at, actor: context.actor, reason: context.reason };
}

/** The entry that starts every history: a submitted request is Pending. */
export function initialEntry(context: TransitionContext): StatusHistoryEntry {
  return { status: 'Pending', at: context.at, actor: context.actor, reason: context.reason };
}

/** PRODUCT.md "Cancel": from Pending, Approved or Suspended, and only while the flight window has not ended. */
export function cancellation(request: { status: FlightRequestStatus; end_time: Date }, context: TransitionContext): StatusHistoryEntry {
  const entry = transition(request.status, 'Cancelled', context);
  if (context.at.getTime() >= request.end_time.getTime()) {
    throw new ConflictError('A flight request whose flight window has ended cannot be cancelled.');
  }
  return entry;
}

function article(status: FlightRequestStatus): string {
  return /^[AEIOU]/.test(status) ? 'An' : 'A';
}
