import { Type } from '@sinclair/typebox';
import { GeoZoneFields, ZONE_TYPES } from '@dfc/contracts';
import { schemaErrors } from '@dfc/kit/validation';
import { type FieldErrors } from '@dfc/kit/errors';
import { at, attribute } from '../geometry/field-errors.js';
import { checkZoneGeometry } from '../geometry/flight-area.js';
import { isRecord, own } from '../geometry/structure.js';
import { ownFormatParts, type GeoZoneDraft } from './geo-zone.js';

/*
 * A zone as an admin sends it (create, replace, or one feature of an import):
 * the schema of its fields, the rules across fields, and the geometry rules,
 * all failing paths at once.
 */

/** The zone fields and a geometry the geometry rules judge; nothing else. */
const ZoneBodyShape = Type.Object({ ...GeoZoneFields.properties, geometry: Type.Optional(Type.Unknown()) }, { additionalProperties: false });

export type ZoneCheck = { ok: true; zone: GeoZoneDraft } | { ok: false; errors: FieldErrors };

/** POST /api/zones, PUT /api/zones/{id}: the fields and `geometry` in one body. */
export function checkZoneInput(input: unknown): ZoneCheck {
  if (!isRecord(input)) return { ok: false, errors: { body: ['The body must be a JSON object.'] } };
  return completeZoneCheck({
    fields: input,
    fieldsPath: '',
    schemaFieldErrors: schemaErrors(ZoneBodyShape, input),
    geometry: own(input, 'geometry'),
    geometryPath: 'geometry',
  });
}

export interface ZoneParts {
  /** The zone fields, already checked against their schema (errors in `schemaFieldErrors`, with full paths). */
  fields: Record<string, unknown>;
  /** Where the fields sit: '' in a body, `features.3.properties` in an import. */
  fieldsPath: string;
  schemaFieldErrors: FieldErrors;
  geometry: unknown;
  geometryPath: string;
}

/** Adds the rules across fields and the geometry rules to the schema's verdict. */
export function completeZoneCheck(parts: ZoneParts): ZoneCheck {
  const errors: FieldErrors = { ...parts.schemaFieldErrors };
  for (const [path, message] of crossFieldErrors(parts.fields, parts.fieldsPath)) (errors[path] ??= []).push(message);
  const checked = checkZoneGeometry(parts.geometry, parts.geometryPath);
  if (!checked.ok) Object.assign(errors, checked.errors);
  if (!checked.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, zone: draftOf(parts.fields as GeoZoneFields, checked.geometry) };
}

/** Rules across fields, checked only where the fields have the right types (the schema reports the rest). */
function* crossFieldErrors(fields: Record<string, unknown>, base: string): Generator<[string, string]> {
  const lower = own(fields, 'lower_limit_m');
  const upper = own(fields, 'upper_limit_m');
  if (Number.isInteger(lower) && Number.isInteger(upper) && (upper as number) <= (lower as number)) {
    const path = at(base, 'upper_limit_m');
    yield [path, `The ${attribute(path)} field must be greater than ${attribute(at(base, 'lower_limit_m'))}.`];
  }
  const schedule = own(fields, 'schedule');
  if (isRecord(schedule)) {
    const start = Date.parse(String(own(schedule, 'start')));
    const end = Date.parse(String(own(schedule, 'end')));
    // The schema's date-time admits a leap second (`23:59:60`), which Date cannot read: refused, never "always".
    for (const [key, instant] of [
      ['start', start],
      ['end', end],
    ] as const) {
      const path = at(base, `schedule.${key}`);
      if (typeof own(schedule, key) === 'string' && Number.isNaN(instant))
        yield [path, `The ${attribute(path)} field must be a date-time that names a real instant.`];
    }
    if (end <= start) {
      const path = at(base, 'schedule.end');
      yield [path, `The ${attribute(path)} field must be a date after ${attribute(at(base, 'schedule.start'))}.`];
    }
  }
  const ceiling = own(fields, 'ctr_exemption_ceiling_m');
  const type = own(fields, 'type');
  const knownType = (ZONE_TYPES as readonly unknown[]).includes(type);
  if (ceiling !== undefined && ceiling !== null && knownType && type !== 'CTR') {
    const path = at(base, 'ctr_exemption_ceiling_m');
    yield [path, `The ${attribute(path)} field is only allowed for CTR zones; leave it out or null.`];
  }
}

/** The own format's limits are metres above ground, its schedule one window (or none: permanent). */
function draftOf(fields: GeoZoneFields, geometry: GeoZoneDraft['geometry']): GeoZoneDraft {
  const schedule = fields.schedule ? { start: fields.schedule.start, end: fields.schedule.end } : null;
  return {
    name: fields.name,
    type: fields.type,
    restriction: fields.restriction,
    lower_limit_m: fields.lower_limit_m,
    upper_limit_m: fields.upper_limit_m,
    schedule,
    authority: fields.authority,
    ctr_exemption_ceiling_m: fields.ctr_exemption_ceiling_m ?? null,
    geometry,
    ...ownFormatParts({ lower_limit_m: fields.lower_limit_m, upper_limit_m: fields.upper_limit_m, schedule, geometry }),
  };
}
