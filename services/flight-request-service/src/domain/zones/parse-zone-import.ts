import { Type } from '@sinclair/typebox';
import { ZONE_IMPORT_MAX_FEATURES, ZoneImport, ZoneImportFeature } from '@dfc/contracts';
import { schemaErrors } from '@dfc/kit/validation';
import { type FieldErrors } from '@dfc/kit/errors';
import { refuseCrs } from '../geometry/features.js';
import { FieldErrorBag } from '../geometry/field-errors.js';
import { isRecord, own } from '../geometry/structure.js';
import { completeZoneCheck } from './check-zone-input.js';
import type { GeoZoneDraft } from './geo-zone.js';
import type { DatasetIssue, PublishedImportParse } from './published/dataset.js';
import { isEd269, parseEd269 } from './published/ed269.js';
import { isEd318, parseEd318 } from './published/ed318.js';

/*
 * POST /api/zones/import: an ED-269 or ED-318 document as published (the
 * modules under published/), or the project's own FeatureCollection of zones, checked feature by
 * feature with paths like `features.3.properties.name`, so an admin sees every
 * problem of a file at once. The schema checks the shape; geometry goes through
 * the geometry rules rather than a schema (hence `Unknown` here).
 */

const ImportShape = Type.Object(
  {
    type: ZoneImport.properties.type,
    name: ZoneImport.properties.name,
    features: Type.Array(Type.Object({ ...ZoneImportFeature.properties, geometry: Type.Optional(Type.Unknown()) }, { additionalProperties: false }), {
      minItems: 1,
    }),
  },
  { additionalProperties: false },
);

export type ZoneImportEntry =
  { index: number; id: string | null; ok: true; zone: GeoZoneDraft } | { index: number; id: string | null; ok: false; errors: FieldErrors };

export interface ZoneImportParse {
  /** How the document was recognised: the project's own FeatureCollection, or as an authority publishes it. */
  format: 'own' | 'ED-269' | 'ED-318';
  /** The published formats' dataset issue (null for the own format). */
  dataset: DatasetIssue | null;
  /** True when every feature is a valid zone. */
  ok: boolean;
  /** Every error of the import (its own and its features'), for one 422. */
  errors: FieldErrors;
  entries: ZoneImportEntry[];
}

/** Recognised by shape: ED-269 has `UASZoneList`, ED-318 `metadata` or ED-318 zone members; anything else is the own format. */
export function parseZoneImport(input: unknown): ZoneImportParse {
  if (isRecord(input) && isEd269(input)) return tooMany(input, 'UASZoneList', 'ED-269') ?? published('ED-269', parseEd269(input));
  if (isRecord(input) && isEd318(input)) return tooMany(input, 'features', 'ED-318') ?? published('ED-318', parseEd318(input));
  return { format: 'own', dataset: null, ...parseOwnImport(input) };
}

/** The same bound on zones as the own format's, checked before any zone is read. */
function tooMany(input: Record<string, unknown>, key: string, format: 'ED-269' | 'ED-318'): ZoneImportParse | null {
  const zones = own(input, key);
  if (!Array.isArray(zones) || zones.length <= ZONE_IMPORT_MAX_FEATURES) return null;
  const message = `The ${key} field must not have more than ${ZONE_IMPORT_MAX_FEATURES} items.`;
  return { format, dataset: null, ok: false, errors: { [key]: [message] }, entries: [] };
}

function published(format: 'ED-269' | 'ED-318', parsed: PublishedImportParse): ZoneImportParse {
  const entries: ZoneImportEntry[] = parsed.zones.map((entry) => ({ index: entry.index, id: entry.id, ok: true, zone: entry.zone }));
  return { format, dataset: parsed.dataset, ok: parsed.ok, errors: parsed.errors, entries };
}

function parseOwnImport(input: unknown): Omit<ZoneImportParse, 'format' | 'dataset'> {
  const features = isRecord(input) ? own(input, 'features') : undefined;
  if (Array.isArray(features) && features.length > ZONE_IMPORT_MAX_FEATURES) {
    const message = `The features field must not have more than ${ZONE_IMPORT_MAX_FEATURES} items.`;
    return { ok: false, errors: { features: [message] }, entries: [] };
  }
  const { own: collectionErrors, byFeature } = splitByFeature(schemaErrors(ImportShape, input));
  if (isRecord(input)) Object.assign(collectionErrors, crsErrors(input, ''));
  if (!Array.isArray(features)) return { ok: false, errors: collectionErrors, entries: [] };

  const entries = features.map((feature, index) => checkFeature(feature, index, byFeature.get(index) ?? {}));
  markRepeatedIds(entries);
  const errors: FieldErrors = { ...collectionErrors };
  for (const entry of entries) if (!entry.ok) Object.assign(errors, entry.errors);
  return { ok: Object.keys(errors).length === 0, errors, entries };
}

function checkFeature(feature: unknown, index: number, schemaFieldErrors: FieldErrors): ZoneImportEntry {
  const path = `features.${index}`;
  if (!isRecord(feature)) return { index, id: null, ok: false, errors: schemaFieldErrors };
  const properties = own(feature, 'properties');
  const featureErrors = { ...schemaFieldErrors, ...crsErrors(feature, path) };
  const id = importId(feature, properties, path, featureErrors);
  const checked = completeZoneCheck({
    fields: isRecord(properties) ? properties : {},
    fieldsPath: `${path}.properties`,
    schemaFieldErrors: featureErrors,
    geometry: own(feature, 'geometry'),
    geometryPath: `${path}.geometry`,
  });
  return checked.ok ? { index, id, ok: true, zone: checked.zone } : { index, id, ok: false, errors: checked.errors };
}

/** The zone's id: on the feature (GeoJSON's place for it) or in its properties; both must agree. */
function importId(feature: Record<string, unknown>, properties: unknown, path: string, errors: FieldErrors): string | null {
  const onFeature = own(feature, 'id');
  const inProperties = isRecord(properties) ? own(properties, 'id') : undefined;
  if (typeof onFeature === 'string' && typeof inProperties === 'string' && onFeature !== inProperties) {
    (errors[`${path}.id`] ??= []).push(`The ${path}.id field must match ${path}.properties.id.`);
  }
  const id = onFeature ?? inProperties;
  return typeof id === 'string' ? id : null;
}

/** Two features naming the same id would overwrite each other: the later one is refused. */
function markRepeatedIds(entries: ZoneImportEntry[]): void {
  const firstIndex = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (entry.id === null) return;
    const first = firstIndex.get(entry.id);
    if (first === undefined) {
      firstIndex.set(entry.id, entry.index);
      return;
    }
    const path = `features.${entry.index}.id`;
    const errors = entry.ok ? {} : entry.errors;
    (errors[path] ??= []).push(`The ${path} field repeats the id of features.${first}.`);
    entries[i] = { index: entry.index, id: entry.id, ok: false, errors };
  });
}

/** Splits schema errors into the collection's own and each feature's (by the index in `features.N...`). */
function splitByFeature(errors: FieldErrors): { own: FieldErrors; byFeature: Map<number, FieldErrors> } {
  const collection: FieldErrors = {};
  const byFeature = new Map<number, FieldErrors>();
  for (const [path, messages] of Object.entries(errors)) {
    const match = /^features\.(\d+)(?:\.|$)/.exec(path);
    if (!match) {
      collection[path] = messages;
      continue;
    }
    const index = Number(match[1]);
    const featureErrors = byFeature.get(index) ?? {};
    featureErrors[path] = messages;
    byFeature.set(index, featureErrors);
  }
  return { own: collection, byFeature };
}

/** The collection's or a feature's `crs` (the geometry's is refused by the geometry rules). */
function crsErrors(object: Record<string, unknown>, path: string): FieldErrors {
  const errors = new FieldErrorBag();
  refuseCrs(object, path, errors);
  return errors.toFieldErrors();
}
