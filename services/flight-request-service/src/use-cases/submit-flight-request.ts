import { randomUUID } from 'node:crypto';
import { ValidationError } from '@dfc/kit/errors';
import { isDuplicateKey } from '@dfc/kit/db';
import type { Principal } from '@dfc/contracts';
import { bodyDigest, checkIdempotencyKey, checkReplay, idempotentUuid } from '../domain/idempotency/idempotency.js';
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
 * request with its history, review items and events in one write. Two
 * retries with one Idempotency-Key race for one uuid: the loser answers with
 * the winner's request.
 */
export async function submitFlightRequest(deps: UseCaseDeps, command: SubmitCommand): Promise<FlightRequest> {
  const now = deps.now();
  const check = checkSubmission(command.body, deps.limits, now);
  if (!check.ok) throw new ValidationError(check.errors);
  const submission = check.submission;
  authoriseOperatorUuid(command.principal, submission.operator_uuid);

  const operator = await deps.operators.find(submission.operator_uuid);
  if (!operator) throw ValidationError.of('operator_uuid', 'The selected operator uuid is invalid.');

  const idempotency = command.idempotencyKey === undefined ? null : keyed(submission, command.idempotencyKey, command.body);
  if (idempotency) {
    const earlier = await deps.requests.find(idempotency.uuid);
    if (earlier) return replay(earlier, idempotency.body_sha256, now);
  }

  const screening = await screenSubmission(deps, submission, operator);
  const { request, events } = submit(submission, screening, {
    uuid: idempotency?.uuid ?? randomUUID(),
    actor: actorOf(command.principal),
    idempotency: idempotency && { key: idempotency.key, body_sha256: idempotency.body_sha256 },
    at: now,
    newItemId: randomUUID,
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

function keyed(submission: ValidSubmission, key: string, body: unknown) {
  checkIdempotencyKey(key);
  return { key, uuid: idempotentUuid(submission.operator_uuid, key), body_sha256: bodyDigest(body) };
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
