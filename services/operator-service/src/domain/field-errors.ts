import type { FieldErrors } from '@dfc/kit/errors';

/** Joins several sources of field errors (schema, domain rules, uniqueness) into one 422 body. */
export function mergeFieldErrors(...sources: FieldErrors[]): FieldErrors {
  const merged: FieldErrors = {};
  for (const source of sources) {
    for (const [field, messages] of Object.entries(source)) {
      const list = (merged[field] ??= []);
      for (const message of messages) if (!list.includes(message)) list.push(message);
    }
  }
  return merged;
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
