import type { FieldErrors } from '@dfc/kit/errors';
import { FieldErrorBag } from '../../geometry/field-errors.js';
import type { Polygonal } from '../../geometry/polygonal.js';
import { isRecord, own } from '../../geometry/structure.js';
import {
  WEEKDAYS,
  type Applicability,
  type DailyPeriod,
  type DayMoment,
  type TimePeriod,
  type VerticalLimit,
  type ZoneAuthorityContact,
  type ZoneVolume,
} from '../geo-zone.js';
import { DAYLIGHT_EVENTS } from '../geo-zone.js';
import { repeatedIdErrors, type DatasetIssue, type PublishedImportParse, type PublishedZoneEntry } from './dataset.js';
import { ed318SchemaErrors } from './ed318-validate.js';
import {
  AUTHORITY_PURPOSES,
  checkBand,
  draftOfPublished,
  PUBLISHED_TYPES,
  readArea,
  readCircle,
  REASONS,
  VERTICAL_REFERENCES,
  withinValidity,
} from './published-zone.js';
import { LONG_TEXT_MAX, preferredText, ZoneReader, EXTENDED_PROPERTIES_MAX_CHARS } from './reader.js';

/*
 * An ED-318 document (a GeoJSON FeatureCollection with `metadata`, each
 * feature's limits in `geometry.layer`): first the shipped JSON Schemas (ajv),
 * then the rules no schema states: areas (closed rings, no crossing edges;
 * Polygon, MultiPolygon, a Point with a Circle `extent`, or a
 * GeometryCollection of them, one volume each), date-times and times that
 * name real instants, ends after starts.
 */

export function isEd318(document: Record<string, unknown>): boolean {
  if (own(document, 'type') !== 'FeatureCollection') return false;
  if (isRecord(own(document, 'metadata'))) return true;
  const features = own(document, 'features');
  const first: unknown = Array.isArray(features) ? features[0] : undefined;
  if (!isRecord(first)) return false;
  const properties = own(first, 'properties');
  const geometry = own(first, 'geometry');
  return (isRecord(properties) && own(properties, 'identifier') !== undefined) || (isRecord(geometry) && own(geometry, 'layer') !== undefined);
}

export function parseEd318(document: Record<string, unknown>): PublishedImportParse {
  // The schema's verdict and the rules beyond it together, so that one answer lists every problem.
  const schemaErrors = ed318SchemaErrors(document);
  const errors = new FieldErrorBag(500);
  const dataset = readDataset(document, errors);
  const features = own(document, 'features');
  const zones: PublishedZoneEntry[] = [];
  (Array.isArray(features) ? features : []).forEach((feature, index) => {
    const entry = isRecord(feature) ? readFeature(feature, index, dataset, errors) : null;
    if (entry) zones.push(entry);
  });
  const all = mergeErrors(
    schemaErrors,
    errors.toFieldErrors(),
    repeatedIdErrors(zones, (index) => `features.${index}.properties.identifier`),
  );
  const ok = Object.keys(all).length === 0;
  return { ok, errors: all, dataset: ok ? dataset : null, zones: ok ? zones : [] };
}

function readDataset(document: Record<string, unknown>, errors: FieldErrorBag): DatasetIssue {
  const reader = new ZoneReader(errors, 'metadata');
  const metadata = isRecord(own(document, 'metadata')) ? (own(document, 'metadata') as Record<string, unknown>) : {};
  const provider = reader.texts(own(metadata, 'provider'), 'metadata.provider');
  const name = typeof own(document, 'name') === 'string' ? (own(document, 'name') as string) : null;
  const validFrom = reader.dateTime(own(metadata, 'validFrom'), 'metadata.validFrom');
  const validTo = reader.dateTime(own(metadata, 'validTo'), 'metadata.validTo');
  if (validFrom !== null && validTo !== null && Date.parse(validTo) <= Date.parse(validFrom))
    reader.fail('metadata.validTo', 'must be after metadata.validFrom.');
  return {
    id: `ED-318:${preferredText(provider) ?? name ?? 'unnamed'}`,
    format: 'ED-318',
    name,
    provider,
    description: reader.texts(own(metadata, 'description'), 'metadata.description', LONG_TEXT_MAX),
    issued: reader.dateTime(own(metadata, 'issued'), 'metadata.issued'),
    valid_from: validFrom,
    valid_to: validTo,
  };
}

function readFeature(feature: Record<string, unknown>, index: number, dataset: DatasetIssue, errors: FieldErrorBag): PublishedZoneEntry | null {
  const base = `features.${index}`;
  const properties = own(feature, 'properties');
  const reader = new ZoneReader(errors, `${base}.properties`);
  if (!isRecord(properties)) {
    reader.fail(`${base}.properties`, 'is required: a zone needs its identifier, country, type and authority.');
    return null;
  }
  const identifier = reader.string(own(properties, 'identifier'), reader.path('identifier'), { required: true });
  reader.identifier = identifier;
  const country = reader.string(own(properties, 'country'), reader.path('country'), { required: true });
  const id = reader.zoneId(country, identifier, reader.path('identifier'));
  const publishedType = reader.oneOf(own(properties, 'type'), reader.path('type'), PUBLISHED_TYPES);
  const volumes = readVolumes(own(feature, 'geometry'), `${base}.geometry`, reader);
  const centre = volumes ? centreOf(volumes) : 0;
  const applicability = readApplicability(own(properties, 'limitedApplicability'), reader.path('limitedApplicability'), reader, centre);
  const extended = own(properties, 'extendedProperties');
  if (extended !== undefined && JSON.stringify(extended).length > EXTENDED_PROPERTIES_MAX_CHARS) {
    reader.fail(reader.path('extendedProperties'), `must not be longer than ${EXTENDED_PROPERTIES_MAX_CHARS} characters as JSON.`);
  }
  const restrictionConditions = reader.string(own(properties, 'restrictionConditions'), reader.path('restrictionConditions'), { max: LONG_TEXT_MAX });
  const authorities = readAuthorities(own(properties, 'zoneAuthority'), reader.path('zoneAuthority'), reader);
  if (!id || !identifier || !country || !publishedType || !volumes || !applicability) return null;
  const reasons = own(properties, 'reason');
  const draft = draftOfPublished(
    {
      identifier,
      country,
      datasetId: dataset.id,
      volumes,
      applicability: withinValidity(applicability, dataset.valid_from, dataset.valid_to),
      published: {
        format: 'ED-318',
        published_type: publishedType,
        variant: typeof own(properties, 'variant') === 'string' ? (own(properties, 'variant') as string) : null,
        names: reader.texts(own(properties, 'name'), reader.path('name')),
        messages: reader.texts(own(properties, 'message'), reader.path('message')),
        reasons: Array.isArray(reasons) ? (reasons as string[]).filter((reason) => (REASONS as readonly string[]).includes(reason)) : [],
        other_reason_info: reader.texts(own(properties, 'otherReasonInfo'), reader.path('otherReasonInfo')),
        restriction_conditions: restrictionConditions,
        region: typeof own(properties, 'region') === 'number' ? (own(properties, 'region') as number) : null,
        regulation_exemption: typeof own(properties, 'regulationExemption') === 'string' ? (own(properties, 'regulationExemption') as string) : null,
        u_space_class: null,
        extended_properties: isRecord(extended) ? extended : null,
        data_source: isRecord(own(properties, 'dataSource')) ? (own(properties, 'dataSource') as Record<string, unknown>) : null,
        authorities,
      },
    },
    reader,
    reader.path('zoneAuthority'),
  );
  return draft ? { index, id, zone: draft } : null;
}

function readAuthorities(value: unknown, path: string, reader: ZoneReader): ZoneAuthorityContact[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((authority, i) => ({
    name: reader.texts(own(authority, 'name'), reader.pathIn(path, i, 'name')),
    service: reader.texts(own(authority, 'service'), reader.pathIn(path, i, 'service')),
    contact_name: reader.texts(own(authority, 'contactName'), reader.pathIn(path, i, 'contactName')),
    site_url: reader.string(own(authority, 'siteURL'), reader.pathIn(path, i, 'siteURL'), { max: 500 }),
    email: reader.string(own(authority, 'email'), reader.pathIn(path, i, 'email'), { max: 320 }),
    phone: reader.string(own(authority, 'phone'), reader.pathIn(path, i, 'phone'), { max: 200 }),
    purpose: reader.oneOf(own(authority, 'purpose'), reader.pathIn(path, i, 'purpose'), AUTHORITY_PURPOSES, false),
    interval_before: reader.string(own(authority, 'intervalBefore'), reader.pathIn(path, i, 'intervalBefore'), { max: 50 }),
  }));
}

/** One volume per area: the geometry's own `layer`, or for a GeometryCollection each member's (else the collection's). */
function readVolumes(geometry: unknown, path: string, reader: ZoneReader): ZoneVolume[] | null {
  if (!isRecord(geometry)) {
    reader.fail(path, 'is required: a zone screens flights by its area.');
    return null;
  }
  if (own(geometry, 'type') === 'GeometryCollection') {
    const members = own(geometry, 'geometries');
    if (!Array.isArray(members) || members.length === 0) {
      reader.fail(reader.pathIn(path, 'geometries'), 'must hold at least one area.');
      return null;
    }
    const outer = own(geometry, 'layer');
    const volumes = members.map((member, i) => readVolume(member, reader.pathIn(path, 'geometries', i), reader, outer));
    return volumes.every((volume) => volume !== null) ? volumes : null;
  }
  const volume = readVolume(geometry, path, reader, undefined);
  return volume ? [volume] : null;
}

function readVolume(geometry: unknown, path: string, reader: ZoneReader, outerLayer: unknown): ZoneVolume | null {
  if (!isRecord(geometry)) {
    reader.fail(path, 'must be a geometry.');
    return null;
  }
  const ownLayer = own(geometry, 'layer');
  const layer = ownLayer ?? outerLayer;
  const layerPath =
    ownLayer !== undefined || outerLayer === undefined
      ? reader.pathIn(path, 'layer')
      : reader.pathIn(path.replace(/\.geometries\.\d+$/, ''), 'layer');
  const area = readShape(geometry, path, reader);
  const limits = readLayer(layer, layerPath, reader);
  if (!area || !limits) return null;
  return { geometry: area, ...limits };
}

function readShape(geometry: Record<string, unknown>, path: string, reader: ZoneReader): Polygonal | null {
  const type = own(geometry, 'type');
  if (type === 'Point') {
    const extent = own(geometry, 'extent');
    if (!isRecord(extent) || own(extent, 'subType') !== 'Circle') {
      reader.fail(reader.pathIn(path, 'extent'), 'must be a Circle extent with a radius: a zone is an area, not a point.');
      return null;
    }
    return readCircle(own(geometry, 'coordinates'), own(extent, 'radius'), path, reader);
  }
  if (type === 'Polygon' || type === 'MultiPolygon') return readArea({ type, coordinates: own(geometry, 'coordinates') }, path, reader);
  reader.fail(
    reader.pathIn(path, 'type'),
    'must be Polygon, MultiPolygon, a Point with a Circle extent or a GeometryCollection of them: a zone is an area.',
  );
  return null;
}

function readLayer(layer: unknown, path: string, reader: ZoneReader): { lower: VerticalLimit; upper: VerticalLimit } | null {
  if (!isRecord(layer)) {
    reader.fail(path, 'is required: a zone needs its lower and upper limits and their references.');
    return null;
  }
  const uom = reader.oneOf(own(layer, 'uom') ?? 'm', reader.pathIn(path, 'uom'), ['m', 'ft'] as const);
  const lowerValue = reader.number(own(layer, 'lower'), reader.pathIn(path, 'lower'));
  const upperValue = reader.number(own(layer, 'upper'), reader.pathIn(path, 'upper'));
  const lowerReference = reader.oneOf(own(layer, 'lowerReference'), reader.pathIn(path, 'lowerReference'), VERTICAL_REFERENCES);
  const upperReference = reader.oneOf(own(layer, 'upperReference'), reader.pathIn(path, 'upperReference'), VERTICAL_REFERENCES);
  if (uom === null || lowerValue === null || upperValue === null || lowerReference === null || upperReference === null) return null;
  const band = { lower: { value: lowerValue, reference: lowerReference, uom }, upper: { value: upperValue, reference: upperReference, uom } };
  return checkBand(band, reader.pathIn(path, 'upper'), reader) ? band : null;
}

/** No `limitedApplicability` (or an empty one): permanent. */
function readApplicability(value: unknown, path: string, reader: ZoneReader, longitude: number): Applicability | null {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return { permanent: true };
  if (!Array.isArray(value)) return (reader.fail(path, 'must be a list of time periods.'), null);
  const periods = value.map((period, i) => readPeriod(period, reader.pathIn(path, i), reader, longitude));
  return periods.every((period) => period !== null) ? { permanent: false, periods: periods } : null;
}

function readPeriod(value: unknown, path: string, reader: ZoneReader, longitude: number): TimePeriod | null {
  if (!isRecord(value)) return (reader.fail(path, 'must be a time period.'), null);
  const failuresBefore = reader.failures;
  const start = reader.dateTime(own(value, 'startDateTime'), reader.pathIn(path, 'startDateTime'));
  const end = reader.dateTime(own(value, 'endDateTime'), reader.pathIn(path, 'endDateTime'));
  if (start !== null && end !== null && Date.parse(end) <= Date.parse(start)) {
    reader.fail(reader.pathIn(path, 'endDateTime'), 'must be after its startDateTime.');
    return null;
  }
  const schedule = own(value, 'schedule');
  const daily = Array.isArray(schedule) ? schedule.map((item, i) => readDaily(item, reader.pathIn(path, 'schedule', i), reader, longitude)) : [];
  return reader.failures > failuresBefore ? null : { start, end, daily: daily as DailyPeriod[] };
}

/** Weekdays with a start and an end, each a time with its offset or a daylight event; either may be left out (the day's start, its end). */
export function readDaily(value: unknown, path: string, reader: ZoneReader, longitude: number): DailyPeriod | null {
  if (!isRecord(value)) return (reader.fail(path, 'must be a daily period.'), null);
  const rawDays = own(value, 'day');
  if (!Array.isArray(rawDays) || rawDays.length === 0) {
    reader.fail(reader.pathIn(path, 'day'), 'must name at least one day (MON … SUN, or ANY).');
    return null;
  }
  const days = rawDays.map((day, i) => reader.oneOf(day, reader.pathIn(path, 'day', i), [...WEEKDAYS, 'ANY'] as const));
  if (days.some((day) => day === null)) return null;
  const start = readMoment(value, path, reader, 'startTime', 'startEvent');
  const end = readMoment(value, path, reader, 'endTime', 'endEvent');
  if (start === undefined || end === undefined) return null;
  const frame = start && 'time' in start ? start.offset_minutes : end && 'time' in end ? end.offset_minutes : Math.round((longitude / 15) * 60);
  return {
    days: days.includes('ANY') ? [...WEEKDAYS] : [...new Set(days as Array<(typeof WEEKDAYS)[number]>)],
    start: start ?? { time: '00:00', seconds: 0, offset_minutes: frame },
    end: end ?? { time: '24:00', seconds: 86_400, offset_minutes: frame },
  };
}

/** null: left out; undefined: refused. */
function readMoment(
  value: Record<string, unknown>,
  path: string,
  reader: ZoneReader,
  timeKey: string,
  eventKey: string,
): DayMoment | null | undefined {
  const time = own(value, timeKey);
  const event = own(value, eventKey);
  if (time != null && event != null) {
    reader.fail(reader.pathIn(path, eventKey), `must not be given together with ${timeKey}.`);
    return undefined;
  }
  if (event != null) {
    const known = reader.oneOf(event, reader.pathIn(path, eventKey), DAYLIGHT_EVENTS);
    return known === null ? undefined : { event: known };
  }
  if (time == null) return null;
  return reader.time(time, reader.pathIn(path, timeKey)) ?? undefined;
}

/** The middle longitude of the zone's areas: where a day without a time of its own is counted in mean solar time. */
export function centreOf(volumes: ZoneVolume[]): number {
  let west = Infinity;
  let east = -Infinity;
  for (const volume of volumes) {
    const polygons = volume.geometry.type === 'Polygon' ? [volume.geometry.coordinates] : volume.geometry.coordinates;
    for (const rings of polygons) {
      for (const position of rings[0] ?? []) {
        west = Math.min(west, position[0] as number);
        east = Math.max(east, position[0] as number);
      }
    }
  }
  return Number.isFinite(west) ? (west + east) / 2 : 0;
}

function mergeErrors(...sets: FieldErrors[]): FieldErrors {
  const merged: FieldErrors = {};
  for (const set of sets) {
    for (const [path, messages] of Object.entries(set)) {
      // The schema's words for a path stand alone: the rules below say the same thing again in others.
      if (merged[path] !== undefined && set !== sets[0]) continue;
      const existing = (merged[path] ??= []);
      for (const message of messages) if (!existing.includes(message)) existing.push(message);
    }
  }
  return merged;
}
