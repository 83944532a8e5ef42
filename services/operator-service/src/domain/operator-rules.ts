import { timeZones } from '@dfc/kit/time-zones';
import { schemaErrors } from '@dfc/kit/validation';
import { mergeFieldErrors, ValidationError, type FieldErrors } from '@dfc/kit/errors';
import { OperatorCreate, OperatorUpdate } from '@dfc/contracts';
import { normaliseInput, requiredMessage, withoutNullFields } from './input.js';

export const OperatorMessages = {
  emailTaken: 'The email has already been taken.',
  ctrNumberRequired: 'The ctr exemption number field is required when exemption for ctr is true.',
  timezoneInvalid: 'The timezone field must be a valid timezone.',
  currentPasswordRequired: 'The current password field is required when password is present.',
  currentPasswordProhibited: 'The current password field is prohibited unless password is present.',
  currentPasswordIncorrect: 'The password is incorrect.',
  credentialsNeedBasic: "Changing the login email or the password needs the operator's email and password (HTTP Basic) besides the API key.",
  revocationNeedsBasic: "Revoking another of the operator's keys needs the operator's email and password (HTTP Basic); a key may revoke itself.",
} as const;

/** "The created at field cannot be changed." */
export function readOnlyFieldMessage(field: string): string {
  return `The ${field.replace(/_/g, ' ')} field cannot be changed.`;
}

/** "The nickname field is not a field of an operator." */
export function unknownFieldMessage(field: string): string {
  return `The ${field.replace(/_/g, ' ')} field is not a field of an operator.`;
}

/** The unique index (or the check before it) found the email in use. */
export function emailTakenError(): ValidationError {
  return ValidationError.of('email', OperatorMessages.emailTaken);
}

const REQUIRED_FIELDS = ['company_name', 'email', 'password', 'phone'] as const;
const UPDATABLE_FIELDS = Object.keys(OperatorUpdate.properties) as (keyof OperatorUpdate)[];
const CREATABLE_FIELDS = Object.keys(OperatorCreate.properties) as (keyof OperatorCreate)[];
/** Fields of the record that no PATCH may set. */
const READ_ONLY_FIELDS = new Set(['uuid', 'created_at', 'updated_at']);

/**
 * `Area/Location` names (`Europe/Berlin`, `America/Argentina/Buenos_Aires`,
 * `Etc/GMT+5`) that the system's tz database knows, spelled as it spells
 * them, or `UTC`. Abbreviations (`EST`) and offsets (`+01:00`) are not IANA
 * identifiers of a place and are refused, as the spec asks for a name.
 */
const IANA_NAME = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)+$/;

export function isValidTimezone(name: string): boolean {
  return name === 'UTC' || (IANA_NAME.test(name) && timeZones.has(name));
}

/** The form in which emails are compared (and uniquely indexed). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The fields the CTR and timezone rules look at, as they are (create) or would become (update). */
export interface OperatorRuleView {
  exemption_for_ctr?: unknown;
  ctr_exemption_number?: unknown;
  timezone?: unknown;
}

/** Rules beyond the schema. Values of the wrong type are left to the schema's messages. */
export function operatorRuleErrors(view: OperatorRuleView): FieldErrors {
  const errors: FieldErrors = {};
  if (typeof view.timezone === 'string' && !isValidTimezone(view.timezone)) {
    errors['timezone'] = [OperatorMessages.timezoneInvalid];
  }
  if (view.exemption_for_ctr === true && (view.ctr_exemption_number === null || view.ctr_exemption_number === undefined)) {
    errors['ctr_exemption_number'] = [OperatorMessages.ctrNumberRequired];
  }
  return errors;
}

/**
 * The outcome of checking a body: every failing field, and the parsed value
 * (meaningful only when there are no errors). `email` is the normalised email
 * when it is well formed, so its uniqueness can be checked (and reported)
 * together with the other failures.
 */
export interface CheckedInput<T> {
  value: T;
  errors: FieldErrors;
  normalisedEmail: string | undefined;
}

/** A registration checked as sent: a field that is not an operator's is refused by name, never dropped. */
export function checkRegistration(body: unknown): CheckedInput<OperatorCreate> {
  const normalised = normaliseInput(body, OperatorCreate);
  const { rest: input } = withoutNullFields(pick(normalised, CREATABLE_FIELDS), REQUIRED_FIELDS);
  const errors = mergeFieldErrors(notCreatableErrors(normalised), schemaErrors(OperatorCreate, input), operatorRuleErrors(input));
  const value = input as OperatorCreate;
  return { value, errors, normalisedEmail: wellFormedEmail(value.email, errors) };
}

/**
 * A PATCH body checked against the operator as it would be after the change.
 * Nothing is silently ignored: read-only and unknown fields are refused by
 * name. A new password follows the registration rules and needs the current
 * one, which the caller verifies (it takes the stored hash).
 */
export function checkUpdate(body: unknown, current: OperatorRuleView): CheckedInput<OperatorUpdate> {
  const normalised = normaliseInput(body, OperatorUpdate);
  const { rest: input, nulls } = withoutNullFields(pick(normalised, UPDATABLE_FIELDS), REQUIRED_FIELDS);
  const requiredErrors: FieldErrors = Object.fromEntries(nulls.map((field) => [field, [requiredMessage(field)]]));
  const shapeErrors = schemaErrors(OperatorUpdate, input);
  // "At least one field" speaks of the body as sent: fields refused by name already say what is wrong with it.
  if (Object.keys(normalised).length > 0) delete shapeErrors['body'];
  const errors = mergeFieldErrors(
    notUpdatableErrors(normalised),
    requiredErrors,
    shapeErrors,
    passwordChangeErrors(input, nulls),
    operatorRuleErrors({ ...current, ...input }),
  );
  const value = input as OperatorUpdate;
  return { value, errors, normalisedEmail: wellFormedEmail(value.email, errors) };
}

function notCreatableErrors(input: Record<string, unknown>): FieldErrors {
  const creatable = new Set<string>(CREATABLE_FIELDS);
  return Object.fromEntries(
    Object.keys(input)
      .filter((field) => !creatable.has(field))
      .map((field) => [field, [unknownFieldMessage(field)]]),
  );
}

function notUpdatableErrors(input: Record<string, unknown>): FieldErrors {
  const updatable = new Set<string>(UPDATABLE_FIELDS);
  const errors: FieldErrors = {};
  for (const field of Object.keys(input)) {
    if (READ_ONLY_FIELDS.has(field)) errors[field] = [readOnlyFieldMessage(field)];
    else if (!updatable.has(field)) errors[field] = [unknownFieldMessage(field)];
  }
  return errors;
}

/** `current_password` goes with `password`, and only with it. */
function passwordChangeErrors(input: Record<string, unknown>, nulls: string[]): FieldErrors {
  const changesPassword = 'password' in input || nulls.includes('password');
  const current = input['current_password'];
  if (changesPassword && (current === undefined || current === null)) {
    return { current_password: [OperatorMessages.currentPasswordRequired] };
  }
  if (!changesPassword && current !== undefined) return { current_password: [OperatorMessages.currentPasswordProhibited] };
  return {};
}

function wellFormedEmail(email: unknown, errors: FieldErrors): string | undefined {
  return typeof email === 'string' && !errors['email'] ? normaliseEmail(email) : undefined;
}

/** The fields a body may set; registration ignores the others, as Laravel's validated() data does (a PATCH refuses them). */
function pick<K extends string>(input: Record<string, unknown>, fields: readonly K[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (field in input) picked[field] = input[field];
  return picked;
}
