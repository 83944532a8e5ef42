import { IANAZone } from 'luxon';
import { schemaErrors } from '@dfc/kit/validation';
import { type FieldErrors } from '@dfc/kit/errors';
import { OperatorCreate, OperatorUpdate } from '@dfc/contracts';
import { mergeFieldErrors } from './field-errors.js';
import { normaliseInput, requiredMessage, withoutNullFields } from './input.js';

export const OperatorMessages = {
  emailTaken: 'The email has already been taken.',
  ctrNumberRequired: 'The ctr exemption number field is required when exemption for ctr is true.',
  timezoneInvalid: 'The timezone field must be a valid timezone.',
} as const;

const REQUIRED_FIELDS = ['company_name', 'email', 'password', 'phone'] as const;
const UPDATABLE_FIELDS = Object.keys(OperatorUpdate.properties) as (keyof OperatorUpdate)[];
const CREATABLE_FIELDS = Object.keys(OperatorCreate.properties) as (keyof OperatorCreate)[];

/**
 * `Area/Location` names (`Europe/Berlin`, `America/Argentina/Buenos_Aires`,
 * `Etc/GMT+5`) in their canonical capitalisation, or `UTC`, that the runtime's
 * tz database knows. Abbreviations (`EST`) and offsets (`+01:00`) are not IANA
 * identifiers of a place and are refused, as the spec asks for a name.
 */
const IANA_NAME = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)+$/;

export function isValidTimezone(name: string): boolean {
  return name === 'UTC' || (IANA_NAME.test(name) && IANAZone.isValidZone(name));
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

export function checkRegistration(body: unknown): CheckedInput<OperatorCreate> {
  const { rest: input } = withoutNullFields(pick(normaliseInput(body), CREATABLE_FIELDS), REQUIRED_FIELDS);
  const errors = mergeFieldErrors(schemaErrors(OperatorCreate, input), operatorRuleErrors(input));
  const value = input as OperatorCreate;
  return { value, errors, normalisedEmail: wellFormedEmail(value.email, errors) };
}

/** A PATCH body checked against the operator as it would be after the change. */
export function checkUpdate(body: unknown, current: OperatorRuleView): CheckedInput<OperatorUpdate> {
  const { rest: input, nulls } = withoutNullFields(pick(normaliseInput(body), UPDATABLE_FIELDS), REQUIRED_FIELDS);
  const requiredErrors: FieldErrors = Object.fromEntries(nulls.map((field) => [field, [requiredMessage(field)]]));
  const errors = mergeFieldErrors(
    requiredErrors,
    schemaErrors(OperatorUpdate, input),
    operatorRuleErrors({ ...current, ...input }),
  );
  const value = input as OperatorUpdate;
  return { value, errors, normalisedEmail: wellFormedEmail(value.email, errors) };
}

function wellFormedEmail(email: unknown, errors: FieldErrors): string | undefined {
  return typeof email === 'string' && !errors['email'] ? normaliseEmail(email) : undefined;
}

/** Unknown fields are ignored, as Laravel's validated() data does. */
function pick<K extends string>(input: Record<string, unknown>, fields: readonly K[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (field in input) picked[field] = input[field];
  return picked;
}
