import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { TRIM_KEYWORD } from '@dfc/contracts';
import { ValidationError, type FieldErrors } from './errors.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

/** A schema's own message for its failures (an OpenAPI `x-` extension, so documents stay valid). */
export const ERROR_MESSAGE_KEYWORD = 'x-error-message';

/**
 * Bodies are checked strictly; query strings arrive as text and are coerced.
 * `verbose` gives errors their `parentSchema`, where a schema's `x-error-message` is read.
 */
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, verbose: true }));
/*
 * A schema's `x-trim` stores the string without its surrounding white space, as
 * Laravel's TrimStrings does before validation. ajv's own way to change data is
 * a modifying keyword; it replaces the value in its parent (the other keywords
 * of the same schema judge the string as sent, which the text patterns allow for).
 */
bodyAjv.addKeyword({
  keyword: TRIM_KEYWORD,
  type: 'string',
  schemaType: 'boolean',
  modifying: true,
  errors: false,
  validate: (trim: boolean, data: string, _schema, where) => {
    if (trim && where !== undefined && where.parentData !== undefined) {
      (where.parentData as Record<string | number, unknown>)[where.parentDataProperty] = data.trim();
    }
    return true;
  },
});
const queryAjv = addFormats(new Ajv({ allErrors: true, strict: false, verbose: true, coerceTypes: true, useDefaults: true }));

export type Validator<T extends TSchema> = (input: unknown) => Static<T>;

/**
 * Compiles a schema (the single source of truth shared with the OpenAPI
 * document) into a function that returns the typed value or throws a 422
 * naming every failing field at once, in Laravel's words and dot paths.
 */
export function bodyValidator<T extends TSchema>(schema: T): Validator<T> {
  return toValidator<T>(bodyAjv.compile(schema));
}

/**
 * Query strings: an unknown parameter, including PHP-style shapes such as
 * `status[]` or `status[$ne]`, is a 422 rather than silently ignored, and an
 * integer must be written as digits (`1e3` and `1.0` are refused like `1.5`).
 */
export function queryValidator<T extends TSchema>(schema: T): Validator<T> {
  const validate = queryAjv.compile({ ...schema, additionalProperties: false });
  const integers = integerPropertiesOf(schema);
  return (input) => {
    const withNul = Object.entries(input as Record<string, unknown>)
      .filter(([, value]) => String(value).includes('\u0000'))
      .map(([name]) => name);
    const notDigits = integers.filter(
      (name) => typeof (input as Record<string, unknown>)[name] === 'string' && !INTEGER_TEXT.test((input as Record<string, string>)[name] ?? ''),
    );
    const valid = validate(input);
    if (valid && notDigits.length === 0 && withNul.length === 0) return input;
    const fields = valid ? {} : toFieldErrors(validate.errors ?? []);
    for (const name of notDigits) fields[name] = [typeMessage(attribute(name), 'integer')];
    for (const name of withNul) fields[name] = [`The ${attribute(name)} field must not contain NUL characters.`];
    throw new ValidationError(fields);
  };
}

const INTEGER_TEXT = /^-?\d+$/;

function integerPropertiesOf(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

/** Runs a schema check and returns the field errors instead of throwing, to merge with domain checks. */
export function schemaErrors<T extends TSchema>(schema: T, input: unknown): FieldErrors {
  const validate = bodyAjv.compile(schema);
  return validate(input) ? {} : toFieldErrors(validate.errors ?? []);
}

function toValidator<T extends TSchema>(validate: ValidateFunction): Validator<T> {
  return (input) => {
    if (validate(input)) return input;
    throw new ValidationError(toFieldErrors(validate.errors ?? []));
  };
}

export function toFieldErrors(errors: ErrorObject[]): FieldErrors {
  const fields: FieldErrors = {};
  // `1.5` fails `type: integer` and `format: int32` both: the type says it.
  const wrongType = new Set(errors.filter((error) => error.keyword === 'type').map((error) => error.instancePath));
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    if (error.keyword === 'format' && wrongType.has(error.instancePath)) continue;
    const field = fieldOf(error);
    const message = messageFor(error, field);
    const list = (fields[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return fields;
}

/** `/flight_area/features/0/type` → `flight_area.features.0.type`. */
function fieldOf(error: ErrorObject): string {
  const base = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (error.keyword === 'required') base.push(String(error.params['missingProperty']));
  if (error.keyword === 'dependentRequired') base.push(String(error.params['property']));
  if (error.keyword === 'additionalProperties') base.push(String(error.params['additionalProperty']));
  return base.join('.') || 'body';
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Laravel shows the attribute with underscores as spaces: "The company name field …". */
function attribute(field: string): string {
  return field.replace(/_/g, ' ');
}

/** The keywords a schema's own message speaks for; lengths, bounds and types keep Laravel's words. */
const CUSTOMISABLE = new Set(['pattern', 'format', 'enum', 'const']);

function messageFor(error: ErrorObject, field: string): string {
  const name = attribute(field);
  // Laravel's `required` fails on a blank string too: a text of white space alone is a missing value.
  if (error.keyword === 'pattern' && typeof error.data === 'string' && error.data.trim() === '') return `The ${name} field is required.`;
  const parentSchema: Record<string, unknown> | undefined = error.parentSchema;
  const custom = parentSchema?.[ERROR_MESSAGE_KEYWORD];
  if (typeof custom === 'string' && CUSTOMISABLE.has(error.keyword)) return custom.replace(':attribute', name);
  // ajv's parameters of the keywords named below.
  const params = error.params as { missingProperty?: string; type?: string; limit?: number; format?: string };
  const limit = String(params.limit);
  switch (error.keyword) {
    case 'required':
      return `The ${name} field is required.`;
    case 'dependentRequired':
      return `The ${name} field is required when ${attribute(params.missingProperty ?? '')} is present.`;
    case 'type':
      // Laravel's `required` fails on null: a null where a value must be is a missing value.
      return error.data === null ? `The ${name} field is required.` : typeMessage(name, String(params.type));
    case 'maxLength':
      return `The ${name} field must not be greater than ${limit} characters.`;
    case 'minLength':
      return Number(params.limit) <= 1 ? `The ${name} field is required.` : `The ${name} field must be at least ${limit} characters.`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `The ${name} field must be at least ${limit}.`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `The ${name} field must not be greater than ${limit}.`;
    case 'minItems':
      return `The ${name} field must have at least ${limit} items.`;
    case 'maxItems':
      return `The ${name} field must not have more than ${limit} items.`;
    case 'enum':
    case 'const':
      return `The selected ${name} is invalid.`;
    case 'format':
      return formatMessage(name, String(params.format));
    case 'additionalProperties':
      return `The ${name} field is prohibited.`;
    case 'minProperties':
      return Number(params.limit) <= 1 ? `The ${name} must name at least one field to change.` : `The ${name} must have at least ${limit} fields.`;
    default:
      return `The ${name} field format is invalid.`;
  }
}

function typeMessage(name: string, type: string): string {
  if (type.includes('boolean')) return `The ${name} field must be true or false.`;
  if (type.includes('integer')) return `The ${name} field must be an integer.`;
  if (type.includes('number')) return `The ${name} field must be a number.`;
  if (type.includes('array')) return `The ${name} field must be an array.`;
  if (type.includes('object')) return `The ${name} field must be an object.`;
  return `The ${name} field must be a string.`;
}

function formatMessage(name: string, format: string): string {
  if (format === 'email') return `The ${name} field must be a valid email address.`;
  if (format === 'uuid') return `The ${name} field must be a valid UUID.`;
  if (format === 'uri') return `The ${name} field must be a valid URL.`;
  if (format === 'date') return `The ${name} field must match the format Y-m-d.`;
  if (format === 'date-time') return `The ${name} field must be a valid date.`;
  if (format === 'int32') return `The ${name} field must be an integer from -2147483648 to 2147483647.`;
  if (format === 'int64') return `The ${name} field must be a safe integer (at most 2^53 - 1 in size).`;
  return `The ${name} field format is invalid.`;
}
