import { ConflictError, NotFoundError, ValidationError, type FieldErrors } from '@dfc/kit/errors';
import type { OperatorUpdate } from '@dfc/contracts';
import { assertIsOperatorOrAdmin } from '../domain/access.js';
import { hasErrors, mergeFieldErrors } from '../domain/field-errors.js';
import { operatorUuidFrom } from '../domain/ids.js';
import { checkUpdate, OperatorMessages } from '../domain/operator-rules.js';
import { operatorUpdated } from '../events/operator-events.js';
import { isDuplicateKeyError } from '../store/duplicate-key.js';
import type { OperatorChanges, OperatorDocument } from '../store/operator-store.js';
import type { Caller, UseCaseDeps } from './deps.js';

/** Concurrent PATCHes of one operator are re-checked against the winner this many times. */
const MAX_ATTEMPTS = 3;

/**
 * PATCH /api/operators/{uuid}: the operator itself or an admin changes contact
 * fields under the registration rules; the CTR rule is judged on the result.
 * The write applies only to the version that was checked, so two racing
 * changes cannot combine into a record that breaks a rule.
 */
export async function updateOperator(deps: UseCaseDeps, uuidText: string, body: unknown, caller: Caller): Promise<OperatorDocument> {
  const uuid = operatorUuidFrom(uuidText);
  assertIsOperatorOrAdmin(caller.principal, uuid ?? uuidText);
  if (!uuid) throw new NotFoundError();

  return deps.operatorChanges.run(uuid, () => applyChange(deps, uuid, body, caller));
}

async function applyChange(deps: UseCaseDeps, uuid: string, body: unknown, caller: Caller): Promise<OperatorDocument> {
  for (let attempt = 1; ; attempt++) {
    const current = await deps.operators.findByUuid(uuid);
    if (!current) throw new NotFoundError();
    const changes = await checkedChanges(deps, current, body);
    if (Object.keys(changes).length === 0) return current;
    const updated = await save(deps, current, changes, caller);
    if (updated) {
      await deps.events.operatorChanged(uuid);
      return updated;
    }
    if (attempt >= MAX_ATTEMPTS) throw new ConflictError('The operator was changed by another request at the same time. Please retry.');
  }
}

async function checkedChanges(deps: UseCaseDeps, current: OperatorDocument, body: unknown): Promise<OperatorChanges> {
  const checked = checkUpdate(body, current);
  const newEmail = checked.normalisedEmail !== current.email_normalised ? checked.normalisedEmail : undefined;
  const taken = newEmail !== undefined && (await deps.operators.emailTaken(newEmail, current._id));
  const errors: FieldErrors = mergeFieldErrors(checked.errors, taken ? { email: [OperatorMessages.emailTaken] } : {});
  if (hasErrors(errors)) throw new ValidationError(errors);
  return changesOf(checked.value, current, checked.normalisedEmail);
}

/** Only what really differs, so a PATCH that changes nothing writes (and emits) nothing. */
function changesOf(input: OperatorUpdate, current: OperatorDocument, emailNormalised: string | undefined): OperatorChanges {
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    if (value !== current[field as keyof OperatorDocument]) changes[field] = value;
  }
  if ('email' in changes && emailNormalised) changes['email_normalised'] = emailNormalised;
  return changes as OperatorChanges;
}

async function save(
  deps: UseCaseDeps,
  current: OperatorDocument,
  changes: OperatorChanges,
  caller: Caller,
): Promise<OperatorDocument | null> {
  const event = operatorUpdated({ ...current, ...changes }, caller.requestId);
  try {
    return await deps.operators.update(current._id, current.version, changes, [event], deps.clock());
  } catch (error) {
    if (isDuplicateKeyError(error)) throw ValidationError.of('email', OperatorMessages.emailTaken);
    throw error;
  }
}
