import type { TObject } from '@sinclair/typebox';
import { TRIM_KEYWORD } from '@dfc/contracts';
/**
 * Laravel's global input middleware, which the spec's clients expect:
 * strings are trimmed (`TrimStrings`, passwords excepted, since spaces in a
 * password are part of it) and empty strings become null
 * (`ConvertEmptyStringsToNull`). Only top-level fields are touched.
 */
const UNTRIMMED_FIELDS = new Set(['password', 'current_password']);

/**
 * A field whose schema trims it (`x-trim`) is left as sent unless blank: the schema judges its
 * length as sent, as the OpenAPI document says, and stores it trimmed. Trimming it here first
 * would let `maxLength` + spaces through where the document refuses it.
 */
export function normaliseInput(body: unknown, schema: TObject): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const normalised: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (typeof value !== 'string' || UNTRIMMED_FIELDS.has(field)) normalised[field] = value;
    else if (trimmedBySchema(schema, field) && value.trim() !== '') normalised[field] = value;
    else normalised[field] = emptyToNull(value.trim());
  }
  return normalised;
}

function trimmedBySchema(schema: TObject, field: string): boolean {
  return (schema.properties[field] as Record<string, unknown> | undefined)?.[TRIM_KEYWORD] === true;
}

function emptyToNull(value: string): string | null {
  return value === '' ? null : value;
}

/**
 * Laravel's `required` fails on null and on missing alike, with one message.
 * Returns the input without those null fields (so a schema reports them as
 * missing) and their names.
 */
export function withoutNullFields(input: Record<string, unknown>, fields: readonly string[]): { rest: Record<string, unknown>; nulls: string[] } {
  const rest = { ...input };
  const nulls: string[] = [];
  for (const field of fields) {
    if (field in rest && rest[field] === null) {
      delete rest[field];
      nulls.push(field);
    }
  }
  return { rest, nulls };
}

/** "The company name field is required." */
export function requiredMessage(field: string): string {
  return `The ${field.replace(/_/g, ' ')} field is required.`;
}
