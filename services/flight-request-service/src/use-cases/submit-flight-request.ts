import { randomUUID } from 'node:crypto';
import { ValidationError } from '@dfc/kit/errors';
import { isDuplicateKey } from '@dfc/kit/db';
import type { Principal } from '@dfc/contracts';
import { bodyDigest, checkIdempotencyKey, checkReplay, idempotentUuid } from '../domain/idempotency/idempotency.js';
import { openItems, reviewAuthorities, isComplete } from '../domain/review/review-group.js';
import type { ScreeningResult } from '../domain/screening/screen.js';
import { initialEntry, transition, type StatusHistoryEntry } from '../domain/state-machine/transitions.js';
import { checkSubmission, type ValidSubmission } from '../domain/submission/check-submission.js';
import { statusChanges, submitted } from '../domain/events/flight-request-events.js';
import { reviewItemsChanged } from '../domain/events/review-item-events.js';
import type { StoredFlightRequest } from '../store/flight-request-model.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
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
export async function submitFlightRequest(deps: UseCaseDeps, command: SubmitCommand): Promise<FlightRequestDoc> {
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
  const request = newFlightRequest(submission, screening, {
    uuid: idempotency?.uuid ?? randomUUID(),
    actor: actorOf(command.principal),
    idempotency: idempotency && { key: idempotency.key, body_sha256: idempotency.body_sha256 },
    now,
  });
  const events = [
    submitted(request, command.requestId),
    ...statusChanges(request, [], request.status_history, command.requestId),
    ...(request.review.items.length > 0 ? [reviewItemsChanged(request, 0, request.review.items, command.requestId)] : []),
  ];
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

function replay(earlier: FlightRequestDoc, digest: string, now: Date): FlightRequestDoc {
  checkReplay({ body_sha256: earlier.idempotency?.body_sha256 ?? '', created_at: earlier.created_at }, digest, now);
  return earlier;
}

/** A concurrent retry with the same key won the insert: answer as its replay would. */
async function replayAfterRace(deps: UseCaseDeps, uuid: string, digest: string, now: Date): Promise<FlightRequestDoc> {
  const winner = await deps.requests.find(uuid);
  if (!winner) throw new Error(`flight request ${uuid} collided but cannot be read`);
  return replay(winner, digest, now);
}

interface Identity {
  uuid: string;
  actor: string;
  idempotency: StoredFlightRequest['idempotency'];
  now: Date;
}

/** The stored document of a new request: Pending, then screening's decision when it made one. */
function newFlightRequest(submission: ValidSubmission, screening: ScreeningResult, identity: Identity): Omit<StoredFlightRequest, 'version'> {
  const history: StatusHistoryEntry[] = [initialEntry({ actor: identity.actor, reason: null, at: identity.now })];
  if (screening.outcome !== 'Pending') {
    history.push(transition('Pending', screening.outcome, { actor: 'screening', reason: decisionReason(screening), at: identity.now }));
  }
  const items = openItems(screening.items, randomUUID);
  const { area, ...fields } = submission;
  const [west, south, east, north] = area.summary.bbox;
  return {
    ...fields,
    _id: identity.uuid,
    status: screening.outcome,
    area: area.summary,
    bbox_west: west,
    bbox_south: south,
    bbox_east: east,
    bbox_north: north,
    flight_area_json: JSON.stringify(area.stored),
    polygons_json: JSON.stringify(area.polygons),
    review: { findings: screening.findings, items, complete: isComplete(items) },
    review_authorities: reviewAuthorities(items),
    cancellation: null,
    status_history: history,
    idempotency: identity.idempotency,
    created_at: identity.now,
    updated_at: identity.now,
  };
}

/** The history's reason for an automatic decision: the findings that decided it. */
function decisionReason(screening: ScreeningResult): string {
  if (screening.outcome === 'Rejected') {
    const blocking = screening.findings.filter((finding) => finding.code === 'ZONE_PROHIBITED').map((finding) => finding.message);
    return blocking.join(' ') || 'Rejected by automatic screening.';
  }
  return 'No review needed: approved by automatic screening.';
}
