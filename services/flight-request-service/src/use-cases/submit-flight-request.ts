import { newId } from '@dfc/contracts';
import { ValidationError } from '@dfc/kit/errors';
import { isDuplicateKey } from '@dfc/kit/db';
import type { Principal } from '@dfc/contracts';
import { bodyDigest, checkIdempotencyKey, checkReplay, idempotencyRef } from '../domain/idempotency/idempotency.js';
import { submit } from '../domain/flight-request/changes.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import { checkSubmission, type ValidSubmission } from '../domain/submission/check-submission.js';
import { actorOf, authoriseOperatorUuid } from './access.js';
import type { UseCaseDeps } from './deps.js';
import { screenSubmission } from './screen-submission.js';

export interface SubmitCommand {
  principal: Principal;
  body: unknown;
  idempotencyKey: string | undefined;
  requestId?: string;
}

/**
 * POST /api/flight-requests: validate every rule, check the operator may be
 * named and is known, replay an idempotent retry, screen, then store the
 * request with its history, review items and events in one write. A key's
 * first use claims a random uuid for it; two retries with one key race for
 * that uuid: the loser answers with the winner's request.
 */
export async function submitFlightRequest(deps: UseCaseDeps, command: SubmitCommand): Promise<FlightRequest> {
  const now = deps.now();
  const check = checkSubmission(command.body, deps.limits, now);
  if (!check.ok) throw new ValidationError(check.errors);
  const submission = check.submission;
  authoriseOperatorUuid(command.principal, submission.operator_uuid);

  const operator = await deps.operators.find(submission.operator_uuid);
  if (!operator) throw ValidationError.of('operator_uuid', 'The selected operator uuid is invalid.');

  const idempotency = command.idempotencyKey === undefined ? null : await keyed(deps, submission, command.idempotencyKey, command.body, now);
  if (idempotency) {
    const earlier = await deps.requests.find(idempotency.uuid);
    if (earlier) return replay(earlier, idempotency.body_sha256, now);
  }

  const screening = await screenSubmission(deps, submission, operator);
  const { request, events } = submit(submission, screening, {
    uuid: idempotency?.uuid ?? newId(),
    actor: actorOf(command.principal),
    idempotency: idempotency && { key: idempotency.key, body_sha256: idempotency.body_sha256 },
    at: now,
    newItemId: newId,
    requestId: command.requestId,
  });
  try {
    const saved = await deps.requests.insert(request, events);
    deps.metrics.requestsByStatus.inc({ status: saved.status });
    return saved;
  } catch (error) {
    if (!idempotency || !isDuplicateKey(error)) throw error;
    return replayAfterRace(deps, request._id, idempotency.body_sha256, now);
  }
}

/** The request uuid the operator's key names: claimed now with a random one, or the one an earlier use claimed (same body, within the window). */
async function keyed(deps: UseCaseDeps, submission: ValidSubmission, key: string, body: unknown, now: Date) {
  checkIdempotencyKey(key);
  const body_sha256 = bodyDigest(body);
  const claim = await deps.idempotencyKeys.claim(idempotencyRef(submission.operator_uuid, key), { request_uuid: newId(), body_sha256, created_at: now });
  checkReplay(claim, body_sha256, now);
  return { key, uuid: claim.request_uuid, body_sha256 };
}

function replay(earlier: FlightRequest, digest: string, now: Date): FlightRequest {
  checkReplay({ body_sha256: earlier.idempotency?.body_sha256 ?? '', created_at: earlier.created_at }, digest, now);
  return earlier;
}

/** A concurrent retry with the same key won the insert: answer as its replay would. */
async function replayAfterRace(deps: UseCaseDeps, uuid: string, digest: string, now: Date): Promise<FlightRequest> {
  const winner = await deps.requests.find(uuid);
  if (!winner) throw new Error(`flight request ${uuid} collided but cannot be read`);
  return replay(winner, digest, now);
}
