import { schemaErrors } from '@dfc/kit/validation';
import { mergeFieldErrors, type FieldErrors } from '@dfc/kit/errors';
import { OperatorApiKeyCreate, StaffApiKeyCreate } from '@dfc/contracts';
import { normaliseInput } from './input.js';

export const StaffKeyMessages = {
  authorityRequired: 'The authority field is required when role is reviewer.',
  authorityProhibited: 'The authority field is prohibited when role is admin.',
  authorityNotString: 'The authority field must be a string.',
} as const;

export interface CheckedKeyRequest<T> {
  /** Meaningful only when there are no errors. */
  value: T;
  errors: FieldErrors;
}

/** `{ name? }` of an operator's key; a blank name is no name. */
export function checkOperatorKey(body: unknown): CheckedKeyRequest<OperatorApiKeyCreate> {
  const input = withoutNulls(normaliseInput(body, OperatorApiKeyCreate), ['name']);
  return { value: input, errors: schemaErrors(OperatorApiKeyCreate, input) };
}

/** A reviewer key acts for exactly one authority; an admin key for none. */
export function checkStaffKey(body: unknown): CheckedKeyRequest<StaffApiKeyCreate> {
  const input = withoutNulls(normaliseInput(body, StaffApiKeyCreate), ['name', 'authority']);
  const rules: FieldErrors = {};
  if (input['role'] === 'reviewer' && input['authority'] === undefined) {
    rules['authority'] = [StaffKeyMessages.authorityRequired];
  }
  // The schema documents a string or nothing: a null sent as the authority is refused, not read as none.
  if (typeof body === 'object' && body !== null && (body as Record<string, unknown>)['authority'] === null) {
    rules['authority'] = [StaffKeyMessages.authorityNotString];
  }
  // Even a blank authority is refused for an admin key: the schema documents it as a non-empty string.
  if (input['role'] === 'admin' && sentNonNull(body, 'authority')) {
    rules['authority'] = [StaffKeyMessages.authorityProhibited];
  }
  return { value: input as StaffApiKeyCreate, errors: mergeFieldErrors(schemaErrors(StaffApiKeyCreate, input), rules) };
}

function sentNonNull(body: unknown, field: string): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)[field] != null;
}

function withoutNulls(input: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const rest = { ...input };
  for (const field of fields) if (rest[field] === null) delete rest[field];
  return rest;
}
