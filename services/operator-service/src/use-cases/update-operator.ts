import { ForbiddenError, hasErrors, mergeFieldErrors, NotFoundError, UnauthenticatedError, ValidationError, type FieldErrors } from '@dfc/kit/errors';
import type { Change } from '@dfc/kit/outbox';
import type { EventEnvelope, OperatorUpdate } from '@dfc/contracts';
import { assertIsOperatorOrAdmin } from '../domain/access.js';
import { operatorUuidFrom } from '../domain/ids.js';
import { checkUpdate, OperatorMessages, type CheckedInput } from '../domain/operator-rules.js';
import { operatorCredentialsChanged, operatorPasswordChanged, operatorUpdated } from '../domain/events/operator-events.js';
import type { OperatorDocument } from '../store/operator-store.js';
import { authenticateOperator } from './authenticate-operator.js';
import type { BasicCredentials, Caller, UseCaseDeps } from './deps.js';

/** The contact fields a PATCH may change (the password is changed apart, as its hash). */
const CONTACT_FIELDS = [
  'company_name',
  'email',
  'phone',
  'operational_authorisation_number',
  'operator_registration_number',
  'exemption_for_ctr',
  'ctr_exemption_number',
  'timezone',
] as const;

type OperatorChanges = Partial<Omit<OperatorDocument, '_id' | 'version'>>;

/**
 * PATCH /api/operators/{uuid}: the operator itself or an admin changes contact
 * fields under the registration rules (the CTR rule judged on the result),
 * and the password when the current one comes with it. The login email and the
 * password are the account itself: an operator changes them only with its email
 * and password (HTTP Basic) beside its key, so a leaked key cannot take the
 * account over, and the change sends the owner a notice at the email it had. The
 * decision is made on the current record and written only onto that version, so
 * two racing changes cannot combine into a record that breaks a rule.
 */
export async function updateOperator(
  deps: UseCaseDeps,
  uuidText: string,
  body: unknown,
  caller: Caller,
  credentials: BasicCredentials | undefined,
): Promise<OperatorDocument> {
  const uuid = operatorUuidFrom(uuidText);
  assertIsOperatorOrAdmin(caller.principal, uuid ?? uuidText);
  if (!uuid) throw new NotFoundError();
  // Credentials, when sent, are always checked, and must be this operator's.
  const proven = credentials !== undefined && (await authenticateOperator(deps, credentials))._id === uuid;
  if (credentials !== undefined && !proven) throw new UnauthenticatedError();
  return deps.operators.change(uuid, (current) => decideUpdate(deps, current, body, caller, proven));
}

/** Check every rule at once → what really changes → its events. Null when nothing changes (no write, no event). */
async function decideUpdate(
  deps: UseCaseDeps,
  current: OperatorDocument,
  body: unknown,
  caller: Caller,
  proven: boolean,
): Promise<Change<OperatorDocument> | null> {
  const checked = checkUpdate(body, current);
  const errors: FieldErrors = mergeFieldErrors(
    checked.errors,
    await emailErrors(deps, current, checked),
    await currentPasswordErrors(deps, current, checked.value),
  );
  if (hasErrors(errors)) throw new ValidationError(errors);

  const contact = contactChanges(checked.value, current, checked.normalisedEmail);
  const newPassword = checked.value.password;
  const credentialChanges = [...('email' in contact ? (['email'] as const) : []), ...(newPassword !== undefined ? (['password'] as const) : [])];
  if (credentialChanges.length > 0 && caller.principal.role === 'operator' && !proven) {
    throw new ForbiddenError(OperatorMessages.credentialsNeedBasic);
  }
  const events: EventEnvelope[] = [];
  if (Object.keys(contact).length > 0) events.push(operatorUpdated({ ...current, ...contact }, caller.requestId));
  if (newPassword !== undefined) events.push(operatorPasswordChanged(current._id, caller.requestId));
  if (credentialChanges.length > 0) events.push(operatorCredentialsChanged(current._id, credentialChanges, current.email, null, caller.requestId));
  if (events.length === 0) return null;

  const passwordHash = newPassword === undefined ? {} : { password_hash: await deps.passwords.hash(newPassword) };
  return { set: { ...contact, ...passwordHash, updated_at: deps.clock() }, events };
}

/** Reported with the other failures; the unique index still decides when two operators race for one email. */
async function emailErrors(deps: UseCaseDeps, current: OperatorDocument, checked: CheckedInput<OperatorUpdate>): Promise<FieldErrors> {
  const email = checked.normalisedEmail;
  if (email === undefined || email === current.email_normalised) return {};
  return (await deps.operators.emailTaken(email, current._id)) ? { email: [OperatorMessages.emailTaken] } : {};
}

async function currentPasswordErrors(deps: UseCaseDeps, current: OperatorDocument, input: OperatorUpdate): Promise<FieldErrors> {
  if (input.password === undefined || typeof input.current_password !== 'string') return {};
  const valid = await deps.passwords.verify(current.password_hash, input.current_password);
  return valid ? {} : { current_password: [OperatorMessages.currentPasswordIncorrect] };
}

/** Only what really differs, so a PATCH that changes nothing writes (and emits) nothing. */
function contactChanges(input: OperatorUpdate, current: OperatorDocument, emailNormalised: string | undefined): OperatorChanges {
  const changes: Record<string, unknown> = {};
  for (const field of CONTACT_FIELDS) {
    if (field in input && input[field] !== current[field]) changes[field] = input[field];
  }
  if ('email' in changes && emailNormalised) changes['email_normalised'] = emailNormalised;
  return changes;
}
