import { FieldErrorBag } from '../../geometry/field-errors.js';
import type { Polygonal } from '../../geometry/polygonal.js';
import { isRecord, own } from '../../geometry/structure.js';
import type { Applicability, DailyPeriod, LangText, TimePeriod, ZoneAuthorityContact, ZoneVolume } from '../geo-zone.js';
import { repeatedIdErrors, type DatasetIssue, type PublishedImportParse, type PublishedZoneEntry } from './dataset.js';
import { centreOf, readDaily } from './ed318.js';
import {
  AUTHORITY_PURPOSES,
  checkBand,
  draftOfPublished,
  limitOf,
  PUBLISHED_TYPES,
  readArea,
  readCircle,
  REASONS,
  VERTICAL_REFERENCES,
} from './published-zone.js';
import { EXTENDED_PROPERTIES_MAX_CHARS, LONG_TEXT_MAX, SHORT_TEXT_MAX, ZoneReader } from './reader.js';

/*
 * An ED-269 document (`UASZoneList`): each zone's volumes in `geometry[]`
 * (a `horizontalProjection` Polygon or Circle between two limits), its
 * `applicability[]`, texts as plain strings. ED-269 has no published JSON
 * Schema beside these samples, so every member is checked here, and a member
 * ED-269 does not define is refused rather than dropped.
 */

const DOCUMENT_KEYS = ['formatVersion', 'createdAt', 'updatedAt', 'metadata', 'UASZoneList'];
const ZONE_KEYS = [
  'identifier',
  'country',
  'name',
  'type',
  'restriction',
  'restrictionConditions',
  'region',
  'reason',
  'otherReasonInfo',
  'regulationExemption',
  'uSpaceClass',
  'message',
  'applicability',
  'zoneAuthority',
  'geometry',
  'extendedProperties',
  'dataSource',
];

export function isEd269(document: Record<string, unknown>): boolean {
  return Array.isArray(own(document, 'UASZoneList'));
}

export function parseEd269(document: Record<string, unknown>): PublishedImportParse {
  const errors = new FieldErrorBag(500);
  const reader = new ZoneReader(errors, '');
  for (const key of Object.keys(document)) if (!DOCUMENT_KEYS.includes(key)) reader.fail(key, 'is not an ED-269 document member.');
  const zones = own(document, 'UASZoneList') as unknown[];
  if (zones.length === 0) reader.fail('UASZoneList', 'must hold at least one zone.');
  const issued = reader.dateTime(own(document, 'createdAt'), 'createdAt');
  const entries: PublishedZoneEntry[] = [];
  const countries = new Set<string>();
  zones.forEach((zone) => {
    if (isRecord(zone) && typeof own(zone, 'country') === 'string') countries.add(own(zone, 'country') as string);
  });
  const dataset: DatasetIssue = {
    id: `ED-269:${[...countries].sort().join('+') || 'unnamed'}`,
    format: 'ED-269',
    name: null,
    provider: [],
    description: [],
    issued,
    valid_from: null,
    valid_to: null,
  };
  zones.forEach((zone, index) => {
    const entry = readZone(zone, index, dataset, errors);
    if (entry) entries.push(entry);
  });
  const all = { ...errors.toFieldErrors(), ...repeatedIdErrors(entries, (index) => `UASZoneList.${index}.identifier`) };
  const ok = Object.keys(all).length === 0;
  return { ok, errors: all, dataset: ok ? dataset : null, zones: ok ? entries : [] };
}

function readZone(zone: unknown, index: number, dataset: DatasetIssue, errors: FieldErrorBag): PublishedZoneEntry | null {
  const reader = new ZoneReader(errors, `UASZoneList.${index}`);
  if (!isRecord(zone)) return (reader.fail(reader.path(), 'must be a zone.'), null);
  const identifier = reader.string(own(zone, 'identifier'), reader.path('identifier'), { required: true, max: 7 });
  reader.identifier = identifier;
  for (const key of Object.keys(zone)) if (!ZONE_KEYS.includes(key)) reader.fail(reader.path(key), 'is not an ED-269 zone member.');
  const country = reader.string(own(zone, 'country'), reader.path('country'), { required: true });
  if (country !== null && !/^[A-Z]{3}$/.test(country)) reader.fail(reader.path('country'), 'must be an ISO 3166-1 alpha-3 code.');
  const id = reader.zoneId(country, identifier, reader.path('identifier'));
  const publishedType = reader.oneOf(own(zone, 'restriction'), reader.path('restriction'), PUBLISHED_TYPES);
  const variant = reader.oneOf(own(zone, 'type'), reader.path('type'), ['COMMON', 'CUSTOMIZED'] as const, false);
  const name = reader.plainText(own(zone, 'name'), reader.path('name'));
  const volumes = readVolumes(own(zone, 'geometry'), reader.path('geometry'), reader);
  const applicability = readApplicability(own(zone, 'applicability'), reader.path('applicability'), reader, volumes ? centreOf(volumes) : 0);
  const reasons = readReasons(own(zone, 'reason'), reader.path('reason'), reader);
  const extended = own(zone, 'extendedProperties');
  if (extended !== undefined && extended !== null && (!isRecord(extended) || JSON.stringify(extended).length > EXTENDED_PROPERTIES_MAX_CHARS)) {
    reader.fail(reader.path('extendedProperties'), `must be an object of at most ${EXTENDED_PROPERTIES_MAX_CHARS} characters as JSON.`);
  }
  const conditions = own(zone, 'restrictionConditions');
  const restrictionConditions = Array.isArray(conditions)
    ? conditions
        .map((condition, i) => reader.string(condition, reader.pathIn(reader.path('restrictionConditions'), i), { max: SHORT_TEXT_MAX }))
        .filter((text) => text !== null)
        .join('\n')
    : reader.string(conditions, reader.path('restrictionConditions'), { max: LONG_TEXT_MAX });
  const region = own(zone, 'region');
  if (region !== undefined && region !== null && !Number.isInteger(region)) reader.fail(reader.path('region'), 'must be an integer.');
  const published = {
    format: 'ED-269' as const,
    published_type: publishedType ?? '',
    variant,
    names: name,
    messages: reader.plainText(own(zone, 'message'), reader.path('message')),
    reasons,
    other_reason_info: reader.plainText(own(zone, 'otherReasonInfo'), reader.path('otherReasonInfo')),
    restriction_conditions: restrictionConditions === '' ? null : restrictionConditions,
    region: Number.isInteger(region) ? (region as number) : null,
    regulation_exemption: reader.oneOf(own(zone, 'regulationExemption'), reader.path('regulationExemption'), ['YES', 'NO'] as const, false),
    u_space_class: reader.oneOf(own(zone, 'uSpaceClass'), reader.path('uSpaceClass'), ['EUROCONTROL', 'CORUS'] as const, false),
    extended_properties: isRecord(extended) ? extended : null,
    data_source: isRecord(own(zone, 'dataSource')) ? (own(zone, 'dataSource') as Record<string, unknown>) : null,
    authorities: readAuthorities(own(zone, 'zoneAuthority'), reader.path('zoneAuthority'), reader),
  };
  if (!id || !identifier || !country || !publishedType || !volumes || !applicability) return null;
  const draft = draftOfPublished(
    { identifier, country, datasetId: dataset.id, volumes, applicability, published },
    reader,
    reader.path('zoneAuthority'),
  );
  return draft ? { index, id, zone: draft } : null;
}

function readReasons(value: unknown, path: string, reader: ZoneReader): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return (reader.fail(path, 'must be a list.'), []);
  return value.flatMap((reason, i) => {
    const known = reader.oneOf(reason, reader.pathIn(path, i), REASONS);
    return known === null ? [] : [known];
  });
}

function readAuthorities(value: unknown, path: string, reader: ZoneReader): ZoneAuthorityContact[] {
  if (!Array.isArray(value) || value.length === 0) return (reader.fail(path, 'must list at least one authority.'), []);
  return value.flatMap((authority, i) => {
    if (!isRecord(authority)) return (reader.fail(reader.pathIn(path, i), 'must be an authority.'), []);
    const text = (key: string): LangText[] => reader.plainText(own(authority, key), reader.pathIn(path, i, key));
    const line = (key: string, max: number) => reader.string(own(authority, key), reader.pathIn(path, i, key), { max });
    return [
      {
        name: text('name'),
        service: text('service'),
        contact_name: text('contactName'),
        site_url: line('siteURL', 500),
        email: line('email', 320),
        phone: line('phone', 200),
        purpose: reader.oneOf(own(authority, 'purpose'), reader.pathIn(path, i, 'purpose'), AUTHORITY_PURPOSES, false),
        interval_before: line('intervalBefore', 50),
      },
    ];
  });
}

function readVolumes(value: unknown, path: string, reader: ZoneReader): ZoneVolume[] | null {
  if (!Array.isArray(value) || value.length === 0) return (reader.fail(path, 'must hold at least one volume.'), null);
  const volumes = value.map((volume, i) => readVolume(volume, reader.pathIn(path, i), reader));
  return volumes.every((volume) => volume !== null) ? volumes : null;
}

function readVolume(value: unknown, path: string, reader: ZoneReader): ZoneVolume | null {
  if (!isRecord(value)) return (reader.fail(path, 'must be a volume.'), null);
  const unit = reader.oneOf(own(value, 'uomDimensions'), reader.pathIn(path, 'uomDimensions'), ['M', 'FT'] as const);
  const lowerReference = reader.oneOf(own(value, 'lowerVerticalReference'), reader.pathIn(path, 'lowerVerticalReference'), VERTICAL_REFERENCES);
  const upperReference = reader.oneOf(own(value, 'upperVerticalReference'), reader.pathIn(path, 'upperVerticalReference'), VERTICAL_REFERENCES);
  const lower = reader.number(own(value, 'lowerLimit') ?? 'missing', reader.pathIn(path, 'lowerLimit'));
  const upperRaw = own(value, 'upperLimit');
  const upper = upperRaw === null || upperRaw === undefined ? null : reader.number(upperRaw, reader.pathIn(path, 'upperLimit'));
  const uom = unit === 'FT' ? 'ft' : 'm';
  const area = readProjection(own(value, 'horizontalProjection'), reader.pathIn(path, 'horizontalProjection'), reader, uom);
  if (!unit || !lowerReference || !upperReference || lower === null || (upperRaw != null && upper === null) || !area) return null;
  // ED-269 leaves upperLimit null for a zone without a ceiling: it is held as the highest limit a zone may have.
  const volume = { geometry: area, lower: limitOf(lower, lowerReference, uom), upper: limitOf(upper, upperReference, uom) };
  return checkBand(volume, reader.pathIn(path, 'upperLimit'), reader) ? volume : null;
}

function readProjection(value: unknown, path: string, reader: ZoneReader, unit: 'm' | 'ft'): Polygonal | null {
  if (!isRecord(value)) return (reader.fail(path, 'is required: a volume needs its area.'), null);
  const type = own(value, 'type');
  if (type === 'Circle') return readCircle(own(value, 'center'), own(value, 'radius'), path, reader, unit);
  if (type === 'Polygon' || type === 'MultiPolygon') return readArea({ type, coordinates: own(value, 'coordinates') }, path, reader);
  reader.fail(reader.pathIn(path, 'type'), 'must be Polygon or Circle.');
  return null;
}

/** YES with no daily period: always. Otherwise between its date-times, in its daily periods. */
function readApplicability(value: unknown, path: string, reader: ZoneReader, longitude: number): Applicability | null {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return { permanent: true };
  if (!Array.isArray(value)) return (reader.fail(path, 'must be a list.'), null);
  const periods: TimePeriod[] = [];
  let permanent = false;
  let failed = false;
  value.forEach((entry, i) => {
    const at = reader.pathIn(path, i);
    if (!isRecord(entry)) return (reader.fail(at, 'must be an applicability.'), (failed = true));
    const flag = reader.oneOf(own(entry, 'permanent'), reader.pathIn(at, 'permanent'), ['YES', 'NO'] as const, false);
    const start = reader.dateTime(own(entry, 'startDateTime'), reader.pathIn(at, 'startDateTime'));
    const end = reader.dateTime(own(entry, 'endDateTime'), reader.pathIn(at, 'endDateTime'));
    if ((own(entry, 'startDateTime') != null && start === null) || (own(entry, 'endDateTime') != null && end === null)) failed = true;
    if (start !== null && end !== null && Date.parse(end) <= Date.parse(start)) {
      reader.fail(reader.pathIn(at, 'endDateTime'), 'must be after its startDateTime.');
      failed = true;
    }
    const dailyRaw = own(entry, 'dailyPeriod');
    const meaningful = Array.isArray(dailyRaw) ? dailyRaw.filter((daily) => !emptyDaily(daily)) : [];
    const daily = meaningful.map((item, j) => readDaily(item, reader.pathIn(at, 'dailyPeriod', j), reader, longitude));
    if (daily.some((item) => item === null)) failed = true;
    if (flag === 'YES' && start === null && end === null && daily.length === 0) permanent = true;
    else if (flag !== 'YES' && start === null && end === null && daily.length === 0) {
      reader.fail(at, 'says neither permanent nor when: give permanent YES, date-times or daily periods.');
      failed = true;
    } else periods.push({ start, end, daily: daily as DailyPeriod[] });
  });
  if (failed) return null;
  return permanent ? { permanent: true } : { permanent: false, periods };
}

/** `{ day: [], startTime: null, endTime: null }`: the placeholder ED-269 writers put beside `permanent: YES`. */
function emptyDaily(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const day = own(value, 'day');
  return Array.isArray(day) && day.length === 0 && own(value, 'startTime') == null && own(value, 'endTime') == null;
}
