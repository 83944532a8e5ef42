import { randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '@dfc/kit/errors';
import { isDuplicateKey } from '@dfc/kit/db';
import type { Principal } from '@dfc/contracts';
import { bodyDigest, checkIdempotencyKey, checkReplay, idempotencyRef } from '../domain/idempotency/idempotency.js';
import { submit } from '../domain/flight-request/changes.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import { checkSubmission, type ValidSubmission } from '../domain/submission/check-submission.js';
import { actorOf, authoriseOperatorUuid } from './access.js';
import type { UseCaseDeps } from './deps.js';
import { reserveAirspace, releaseAirspace, volumeOf } from './deconfliction/reserve-airspace.js';
import { screenSubmission } from './screen-submission.js';
import { rescreenIfZonesMoved } from './rescreen-if-zones-moved.js';

export interface SubmitCommand {
  principal: Principal;
  body: unknown;
  idempotencyKey: string | undefined;
  /** The caller's internal token: the operator's facts are read on its behalf. */
  credentials?: string;
  requestId?: string;
}

/**
 * POST /api/flight-requests: validate every rule, check the operator may be
 * named and is known, replay an idempotent retry, screen, then store the
 * request with its history, review items and events in one write. A request
 * screening would approve must first reserve its airspace: it is stored as
 * Screening, claims the ledger, and is then written Approved, or Pending for
 * the deconfliction review when another operator's flight took the airspace
 * first. A key's first use claims a random uuid for it; two retries with one
 * key race for that uuid: the loser answers with the winner's request. A zone
 * change that ended while the request was being screened and stored is
 * applied to it before the answer (`rescreenIfZonesMoved`).
 */
export async function submitFlightRequest(deps: UseCaseDeps, command: SubmitCommand): Promise<FlightRequest> {
  const now = deps.now();
  const check = checkSubmission(command.body, deps.limits, now, deps.rules.vertical);
  if (!check.ok) throw new ValidationError(check.errors);
  const submission = check.submission;
  authoriseOperatorUuid(command.principal, submission.operator_uuid);

  const operator = await deps.operatorFacts.current(submission.operator_uuid, command.credentials);
  if (!operator) throw ValidationError.of('operator_uuid', 'The selected operator uuid is invalid.');

  const idempotency = command.idempotencyKey === undefined ? null : await keyed(deps, submission, command.idempotencyKey, command.body, now);
  if (idempotency) {
    const earlier = await deps.requests.find(idempotency.uuid);
    if (earlier) return replay(earlier, idempotency.body_sha256, now);
  }

  const context = {
    uuid: idempotency?.uuid ?? randomUUID(),
    actor: actorOf(command.principal),
    idempotency: idempotency && { key: idempotency.key, body_sha256: idempotency.body_sha256 },
    at: now,
    newItemId: randomUUID,
    requestId: command.requestId,
  };
  const screening = await screenSubmission(deps, submission, operator);
  const { request, events } = submit(submission, screening, context);
  let saved: FlightRequest;
  try {
    saved =
      request.status === 'Approved' ? await approveWithReservation(deps, request, events, redecide) : await deps.requests.insert(request, events);
  } catch (error) {
    if (!idempotency || !isDuplicateKey(error)) throw error;
    return replayAfterRace(deps, request._id, idempotency.body_sha256, now);
  }
  deps.metrics.requestsByStatus.inc({ status: saved.status });
  return rescreenIfZonesMoved(deps, saved, screening.zoneEpoch, command.requestId);

  /** Screening again with the flights that took the airspace first: Pending, with their deconfliction item. */
  async function redecide(conflicts: Parameters<typeof screenSubmission>[3] = []) {
    return submit(submission, await screenSubmission(deps, submission, operator!, conflicts), context);
  }
}

type Redecide = (conflicts: Parameters<typeof screenSubmission>[3]) => Promise<ReturnType<typeof submit>>;

/** Stores the approval-to-be as Screening, reserves its airspace, then writes it Approved, or as screening decides without that airspace. */
async function approveWithReservation(
  deps: UseCaseDeps,
  request: Omit<FlightRequest, 'version'>,
  events: ReturnType<typeof submit>['events'],
  redecide: Redecide,
): Promise<FlightRequest> {
  const claim = randomUUID();
  const inserted = await deps.requests.insertScreening(request, { claim, state: 'claiming', at: deps.now(), cells: [] });
  const reservation = await reserveAirspace(deps, volumeOf(request), claim, request._id);
  const outcome = reservation.reserved
    ? { request: { ...request, deconfliction: { claim, state: 'held' as const, at: deps.now(), cells: reservation.cells } }, events }
    : await redecide(reservation.conflicts);
  if (!reservation.reserved && outcome.request.status === 'Approved') throw new Error('screening approved a flight whose airspace is taken');
  const saved = await deps.requests.completeScreening(inserted, outcome.request, outcome.events);
  if (saved) return saved;
  if (reservation.reserved) await releaseAirspace(deps, claim);
  throw new ConflictError('The submission took too long to reserve its airspace and was withdrawn; submit it again.');
}

/** The request uuid the operator's key names: claimed now with a random one, or the one an earlier use claimed (same body, within the window). */
async function keyed(deps: UseCaseDeps, submission: ValidSubmission, key: string, body: unknown, now: Date) {
  checkIdempotencyKey(key);
  const body_sha256 = bodyDigest(body);
  const claim = await deps.idempotencyKeys.claim(idempotencyRef(submission.operator_uuid, key), {
    request_uuid: randomUUID(),
    body_sha256,
    created_at: now,
  });
  checkReplay(claim, body_sha256, now);
  return { key, uuid: claim.request_uuid, body_sha256 };
}

function replay(earlier: FlightRequest, digest: string, now: Date): FlightRequest {
  checkReplay({ body_sha256: earlier.idempotency?.body_sha256 ?? '', created_at: earlier.created_at }, digest, now);
  return earlier;
}

/** Polls for a concurrent retry's request that is still reserving its airspace. */
const SCREENING_POLL_MS = 50;
const SCREENING_WAIT_MS = 10_000;

/** A concurrent retry with the same key won the insert: answer as its replay would, once it is no longer Screening. */
async function replayAfterRace(deps: UseCaseDeps, uuid: string, digest: string, now: Date): Promise<FlightRequest> {
  const deadline = Date.now() + SCREENING_WAIT_MS;
  for (;;) {
    // Asked before the read: a winner that completes in between is then found, not taken for gone.
    const screening = await deps.requests.isScreening(uuid);
    const winner = await deps.requests.find(uuid);
    if (winner) return replay(winner, digest, now);
    if (!screening || Date.now() > deadline) {
      throw new ConflictError('A submission with this Idempotency-Key is still being processed; try again.');
    }
    await new Promise((resolve) => setTimeout(resolve, SCREENING_POLL_MS));
  }
}
