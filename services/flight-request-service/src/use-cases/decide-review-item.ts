import { randomUUID } from 'node:crypto';
import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { ReviewDecision, type Principal } from '@dfc/contracts';
import { AirspaceTakenError } from '../domain/deconfliction/airspace-taken.js';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import { decide } from '../domain/flight-request/changes.js';
import type { FlightRequest, FlightRequestChange } from '../domain/flight-request/flight-request.js';
import type { DecisionOutcome, ItemDecision } from '../domain/review/review-group.js';
import { actorOf } from './access.js';
import { releaseAirspace, reserveAirspace, volumeOf } from './deconfliction/reserve-airspace.js';
import type { UseCaseDeps } from './deps.js';

const validateDecision = bodyValidator(ReviewDecision);

export interface DecidedItem {
  request: FlightRequest;
  itemId: string;
}

/** Thrown out of a plain write whose decision turns out to approve: approvals go through the ledger. */
class ApprovalNeedsAirspace extends Error {}

/**
 * POST /api/reviews/{id}/decision: a reviewer of the item's authority (or an
 * admin) approves or rejects it. A rejection rejects the request and
 * cascade-rejects its other pending items; the last decision completes the
 * group, and approving every item approves the request (a suspended one
 * again, on the reservation it kept) — once its airspace is reserved: when another operator's flight holds it (or is taking it) the
 * decision answers 409 with the shared volume and the item stays pending.
 * The request that owns the item is found by the item id (indexed), then
 * changed as a whole.
 */
export async function decideReviewItem(
  deps: UseCaseDeps,
  principal: Principal,
  itemId: string,
  body: unknown,
  requestId?: string,
): Promise<DecidedItem> {
  const uuid = await deps.requests.uuidOfItem(itemId);
  if (!uuid) throw new NotFoundError();
  const actor = actorOf(principal);
  const decideOn = (current: FlightRequest) => {
    const item = current.review.items.find((candidate) => candidate.id === itemId);
    if (!item) throw new NotFoundError();
    if (principal.role !== 'admin' && item.authority !== principal.authority) {
      throw new ForbiddenError('This review item belongs to another authority.');
    }
    return decide(current, itemId, { ...validateDecision(body), actor, at: deps.now() } satisfies ItemDecision, requestId);
  };
  return { request: await applyDecision(deps, uuid, decideOn), itemId };
}

export type DecideOn = (current: FlightRequest) => { change: FlightRequestChange; settles: DecisionOutcome['settles'] };

/**
 * Writes a decision on one of the request's items; one that approves the request reserves its airspace first,
 * unless the request still holds it (a suspended approval keeps its reservation). A rejection gives back what
 * the request held.
 */
export async function applyDecision(deps: UseCaseDeps, uuid: string, decideOn: DecideOn): Promise<FlightRequest> {
  let settles: DecisionOutcome['settles'] = null;
  let held: Deconfliction | null = null;
  let request: FlightRequest;
  try {
    request = await deps.requests.change(uuid, (current) => {
      const decided = decideOn(current);
      if (decided.settles === 'Approved' && current.deconfliction?.state !== 'held') throw new ApprovalNeedsAirspace();
      settles = decided.settles;
      held = current.deconfliction ?? null;
      return decided.change;
    });
  } catch (error) {
    if (!(error instanceof ApprovalNeedsAirspace)) throw error;
    request = await approveWithReservation(deps, uuid, decideOn);
    settles = request.status === 'Approved' ? 'Approved' : null;
  }
  const freed = held as Deconfliction | null;
  if (freed && !request.deconfliction) await releaseAirspace(deps, freed.claim);
  if (settles) deps.metrics.requestsByStatus.inc({ status: settles });
  return request;
}

/**
 * Marks the request as claiming, reserves its airspace, then writes the
 * decision with the reservation held — conditional on the claim still being
 * the request's (a cancellation meanwhile clears it, and the claim is given back).
 */
async function approveWithReservation(deps: UseCaseDeps, uuid: string, decideOn: DecideOn): Promise<FlightRequest> {
  const claim = randomUUID();
  const marked = await deps.requests.change(uuid, (current) => {
    decideOn(current);
    return { set: { deconfliction: { claim, state: 'claiming', at: deps.now(), cells: [] } } };
  });
  const reservation = await reserveAirspace(deps, volumeOf(marked), claim, uuid);
  if (!reservation.reserved) {
    await deps.requests.change(uuid, (current) => (current.deconfliction?.claim === claim ? { set: { deconfliction: null } } : null));
    throw new AirspaceTakenError(marked, reservation.conflicts, deps.rules.vertical);
  }
  try {
    const decided = await deps.requests.change(uuid, (current) => {
      const { change, settles } = decideOn(current);
      if (current.deconfliction?.claim !== claim) throw new AirspaceTakenError(current, []);
      const deconfliction = settles === 'Approved' ? { claim, state: 'held' as const, at: deps.now(), cells: reservation.cells } : null;
      return { ...change, set: { ...change.set, deconfliction } };
    });
    if (decided.deconfliction?.claim !== claim) await releaseAirspace(deps, claim);
    return decided;
  } catch (error) {
    await releaseAirspace(deps, claim);
    throw error;
  }
}
