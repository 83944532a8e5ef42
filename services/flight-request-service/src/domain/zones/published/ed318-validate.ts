import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldErrors } from '@dfc/kit/errors';
import { ED318_ROOT_SCHEMA, ED318_SCHEMAS } from './ed318-schemas.js';

/*
 * An ED-318 document checked against the shipped schemas with ajv. The schemas
 * reference each other by relative file name, so each is registered under a
 * base URI of its own. They use one format ajv does not know (`DateTimeType`,
 * a date-time the dataset's `dataSource` carries) and a member that is not a
 * keyword (`extent`), hence strict mode off; the formats they name
 * (`date-time`, `time`, `uri`, `email`, `duration`) come from ajv-formats.
 */

const BASE = 'https://dfc.invalid/ed318/';
/** A hostile document can fail everywhere: past this many paths the answer stops listing. */
const MAX_REPORTED_PATHS = 200;

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** What a `oneOf` says of the branches that did not apply: said only where nothing deeper explains the failure. */
const NOISE = /must be null|must match exactly one schema/;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat('DateTimeType', true);
  for (const [file, schema] of Object.entries(ED318_SCHEMAS)) ajv.addSchema({ ...schema, $id: `${BASE}${file}` });
  compiled = ajv.getSchema(`${BASE}${ED318_ROOT_SCHEMA}`) as ValidateFunction;
  return compiled;
}

/**
 * The schema's errors by dot path (`features.3.properties.type`), each message
 * naming the zone's `identifier` where the feature has one.
 */
export function ed318SchemaErrors(document: unknown): FieldErrors {
  const validate = validator();
  if (validate(document)) return {};
  const byPath = new Map<string, string[]>();
  for (const error of validate.errors ?? []) {
    const path = dotPath(error);
    const messages = byPath.get(path) ?? [];
    const message = messageOf(error, path, document);
    if (!messages.includes(message)) messages.push(message);
    if (messages.length === 1 && byPath.size >= MAX_REPORTED_PATHS) break;
    byPath.set(path, messages);
  }
  const errors: FieldErrors = {};
  const paths = [...byPath.keys()];
  for (const [path, messages] of byPath) {
    const useful = messages.filter((message) => !NOISE.test(message));
    if (useful.length === 0 && paths.some((other) => other.startsWith(`${path}.`))) continue;
    errors[path] = useful.length > 0 ? useful : messages;
  }
  return errors;
}

function dotPath(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
  return segments.length === 0 ? 'body' : segments.join('.');
}

function messageOf(error: ErrorObject, path: string, document: unknown): string {
  const zone = identifierAt(document, path);
  const subject = `The ${path} field${zone ? ` (zone ${zone})` : ''}`;
  switch (error.keyword) {
    case 'required':
      return `${subject} is required.`;
    case 'additionalProperties':
      return `${subject} is not an ED-318 zone property.`;
    case 'enum':
      return `${subject} must be one of: ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}.`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}.`;
  }
}

/** The `properties.identifier` of the feature a path lies in, when it is a string. */
function identifierAt(document: unknown, path: string): string | null {
  const match = /^features\.(\d+)(?:\.|$)/.exec(path);
  if (!match || typeof document !== 'object' || document === null) return null;
  const features = (document as { features?: unknown }).features;
  if (!Array.isArray(features)) return null;
  const feature: unknown = features[Number(match[1])];
  const properties = typeof feature === 'object' && feature !== null ? (feature as { properties?: unknown }).properties : undefined;
  const identifier = typeof properties === 'object' && properties !== null ? (properties as { identifier?: unknown }).identifier : undefined;
  return typeof identifier === 'string' ? identifier : null;
}
