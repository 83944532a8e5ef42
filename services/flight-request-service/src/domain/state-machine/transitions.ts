import { ConflictError } from '@dfc/kit/errors';
import type { FlightRequestStatus } from '@dfc/contracts';

/**
 * PRODUCT.md "States": where each status may go. Rejected, Cancelled, Expired,
 * Rescinded and Ended lead nowhere; an approval is rescinded when a zone created
 * or changed after it prohibits the flight, and suspended when a new
 * authorisation zone puts it back under that authority's review: the
 * authority's decision (or the zone being lifted) ends the suspension. An
 * approved flight is activated by its operator inside its window and ended by
 * them (or by the system once its window closed); an amendment takes an
 * Approved request back to Pending for review, or approves it again (a new
 * authorisation).
 */
const ALLOWED: Record<FlightRequestStatus, readonly FlightRequestStatus[]> = {
  Pending: ['Approved', 'Rejected', 'Cancelled', 'Expired'],
  Approved: ['Cancelled', 'Rescinded', 'Suspended', 'Activated', 'Ended', 'Pending', 'Approved'],
  Suspended: ['Approved', 'Rejected', 'Cancelled', 'Rescinded'],
  Rejected: [],
  Cancelled: [],
  Expired: [],
  Rescinded: [],
  Activated: ['Ended'],
  Ended: [],
};

/**
 * The statuses a zone created or changed can still affect while the flight window has not ended: one list, so
 * that every status added later (an activated flight) is screened again by naming it here.
 */
export const LIVE_STATUSES: readonly FlightRequestStatus[] = ['Pending', 'Approved', 'Suspended', 'Activated'];

/** The verb a 409 uses for the refused target ("cannot be cancelled"). */
const VERB: Record<FlightRequestStatus, string> = {
  Pending: 'made pending again',
  Approved: 'approved',
  Rejected: 'rejected',
  Cancelled: 'cancelled',
  Expired: 'expired',
  Rescinded: 'rescinded',
  Suspended: 'suspended',
  Activated: 'activated',
  Ended: 'ended',
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

/** Activation: an Approved flight, from its start until its end. */
export function activation(
  request: { status: FlightRequestStatus; start_time: Date; end_time: Date },
  context: TransitionContext,
): StatusHistoryEntry {
  const entry = transition(request.status, 'Activated', context);
  const now = context.at.getTime();
  if (now < request.start_time.getTime()) throw new ConflictError('A flight cannot be activated before its flight window starts.');
  if (now >= request.end_time.getTime()) throw new ConflictError('A flight whose flight window has ended cannot be activated.');
  return entry;
}

/** The operator ends a flight they activated; an Approved flight not flown is cancelled instead. */
export function ending(request: { status: FlightRequestStatus }, context: TransitionContext): StatusHistoryEntry {
  if (request.status === 'Approved') throw new ConflictError('An Approved flight that was not activated cannot be ended; cancel it instead.');
  if (request.status !== 'Activated') throw new ConflictError(`${article(request.status)} ${request.status} flight request cannot be ended.`);
  return transition(request.status, 'Ended', context);
}

function article(status: FlightRequestStatus): string {
  return /^[AEIOU]/.test(status) ? 'An' : 'A';
}
