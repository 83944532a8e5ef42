import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '@dfc/kit/errors';
import { schemaErrors } from '@dfc/kit/validation';
import { FlightRequestAmendment, isUuid, type Principal } from '@dfc/contracts';
import { amend, amendedBody, changedFields, checkAmendable, type AmendmentDecision } from '../domain/flight-request/amendment.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import type { ApprovedFlight } from '../domain/screening/screen.js';
import { checkSubmission, type ValidSubmission } from '../domain/submission/check-submission.js';
import { actorOf, visibleTo } from './access.js';
import { releaseAirspace, reserveAirspace, volumeOf } from './deconfliction/reserve-airspace.js';
import type { UseCaseDeps } from './deps.js';
import { screenSubmission } from './screen-submission.js';

export interface AmendCommand {
  principal: Principal;
  uuid: string;
  body: unknown;
  /** The caller's internal token: the operator's facts are read on its behalf. */
  credentials?: string;
  requestId?: string;
}

const CHANGED_MEANWHILE = 'The flight request changed while it was being amended; try again.';

/**
 * PATCH /api/flight-requests/{uuid}: the operator (or an admin) changes the
 * window, ceiling, purpose or area of a Pending or Approved request that has
 * not started. The amended request is checked as a submission is, screened
 * again, and decided (domain/flight-request/amendment.ts). Going back to
 * review is one write, conditional on the version the amendment was decided
 * from. Approved again, it first reserves its new airspace on the ledger
 * (an Approved request keeps its old claim held meanwhile, and the approving
 * write swaps them); when another operator's flight holds that airspace, the
 * request goes back to Pending with a deconfliction item instead. A repeat of
 * an amendment already made changes nothing and answers the request as it is.
 */
export async function amendFlightRequest(deps: UseCaseDeps, command: AmendCommand): Promise<FlightRequest> {
  if (!isUuid(command.uuid)) throw new NotFoundError();
  const uuid = command.uuid.toLowerCase();
  const current = visibleTo(command.principal, await deps.requests.find(uuid));
  const shape = schemaErrors(FlightRequestAmendment, command.body);
  if (Object.keys(shape).length > 0) throw new ValidationError(shape);
  const now = deps.now();
  checkAmendable(current, now);
  const check = checkSubmission(amendedBody(current, command.body as Record<string, unknown>), deps.limits, now, deps.rules.vertical);
  if (!check.ok) throw new ValidationError(check.errors);
  const amended = check.submission;
  if (changedFields(current, amended).length === 0) return current;

  const operator = await deps.operatorFacts.current(current.operator_uuid, command.credentials);
  if (!operator) throw new ConflictError('The operator of this flight request is no longer registered.');
  const context = { actor: actorOf(command.principal), at: now, newItemId: randomUUID, requestId: command.requestId };
  const decide = async (alsoTaken: ApprovedFlight[] = []) =>
    amend(current, amended, await screenSubmission(deps, amended, operator, alsoTaken), context);
  const decision = await decide();
  const saved =
    decision.target === 'Approved' ? await approveAmendment(deps, current, amended, decision, decide) : await backToReview(deps, current, decision);
  deps.metrics.requestsByStatus.inc({ status: saved.status });
  return saved;
}

/** One write from the version the amendment was decided from; the airspace the request held is given back. */
async function backToReview(deps: UseCaseDeps, current: FlightRequest, decision: AmendmentDecision, from = current.version): Promise<FlightRequest> {
  const saved = await deps.requests.change(current._id, (stored) => {
    if (stored.version !== from) throw new ConflictError(CHANGED_MEANWHILE);
    return decision.change;
  });
  await release(deps, current.deconfliction ?? null);
  return saved;
}

/**
 * Marks the amendment's claim on the request (beside the held one of an
 * Approved request), reserves the amended airspace, then writes the amendment
 * with the new claim held, conditional on nothing else having changed the
 * request since the mark. When the airspace is taken, the request goes back
 * to review with the flights that hold it.
 */
async function approveAmendment(
  deps: UseCaseDeps,
  current: FlightRequest,
  amended: ValidSubmission,
  decision: AmendmentDecision,
  redecide: (alsoTaken: ApprovedFlight[]) => Promise<AmendmentDecision>,
): Promise<FlightRequest> {
  const claim = randomUUID();
  const held = current.deconfliction?.state === 'held' ? current.deconfliction : null;
  const marked = await deps.requests.change(current._id, (stored) => {
    if (stored.version !== current.version) throw new ConflictError(CHANGED_MEANWHILE);
    const at = deps.now();
    const deconfliction: Deconfliction = held ? { ...held, next: { claim, at } } : { claim, state: 'claiming', at, cells: [] };
    return { set: { deconfliction } };
  });
  const volume = volumeOf({ ...current, ...amended, geometry: { polygons: amended.area.polygons } });
  const reservation = await reserveAirspace(deps, volume, claim, current._id);
  try {
    if (!reservation.reserved) {
      const waiting = await redecide(reservation.conflicts);
      if (waiting.target === 'Approved') throw new Error('screening approved an amendment whose airspace is taken');
      return await backToReview(deps, current, waiting, marked.version);
    }
    const saved = await deps.requests.change(current._id, (stored) => {
      if (stored.version !== marked.version) throw new ConflictError(CHANGED_MEANWHILE);
      const deconfliction: Deconfliction = { claim, state: 'held', at: deps.now(), cells: reservation.cells };
      return { ...decision.change, set: { ...decision.change.set, deconfliction } };
    });
    await release(deps, held);
    return saved;
  } catch (error) {
    if (reservation.reserved) await releaseAirspace(deps, claim);
    await deps.requests.change(current._id, (stored) => withoutClaim(stored, claim));
    throw error;
  }
}

/** The request with the amendment's claim taken off again (null when it no longer carries it). */
function withoutClaim(stored: FlightRequest, claim: string) {
  const reservation = stored.deconfliction;
  if (reservation?.next?.claim === claim) return { set: { deconfliction: { ...reservation, next: null } } };
  if (reservation?.claim === claim && reservation.state === 'claiming') return { set: { deconfliction: null } };
  return null;
}

async function release(deps: UseCaseDeps, reservation: Deconfliction | null): Promise<void> {
  if (reservation) await releaseAirspace(deps, reservation.claim);
}
