import { ValidationError } from '@dfc/kit/errors';
import type { FlightRequestPreview, Principal } from '@dfc/contracts';
import { checkSubmission } from '../domain/submission/check-submission.js';
import { volumeRecords } from '../domain/volumes/flight-volume.js';
import { authoriseOperatorUuid } from './access.js';
import type { UseCaseDeps } from './deps.js';
import { screenSubmission } from './screen-submission.js';

/**
 * POST /api/flight-requests/preview: the checks and the screening a submission
 * of the same body would get now (same 422s, 403 and unknown-operator rule),
 * then the outcome — and nothing else: no document, no event, no idempotency record.
 */
export async function previewFlightRequest(
  deps: UseCaseDeps,
  principal: Principal,
  body: unknown,
  credentials?: string,
): Promise<FlightRequestPreview> {
  const check = checkSubmission(body, deps.limits, deps.now(), deps.rules.vertical);
  if (!check.ok) throw new ValidationError(check.errors);
  const submission = check.submission;
  authoriseOperatorUuid(principal, submission.operator_uuid);
  const operator = await deps.operatorFacts.current(submission.operator_uuid, credentials);
  if (!operator) throw ValidationError.of('operator_uuid', 'The selected operator uuid is invalid.');

  const screening = await screenSubmission(deps, submission, operator);
  return {
    status: screening.outcome,
    findings: screening.findings,
    review_items: screening.items,
    area: submission.area.summary,
    volumes: volumeRecords({ ...submission, area: submission.area.summary }),
  };
}
