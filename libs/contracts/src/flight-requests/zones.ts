import { Type, type Static } from '@sinclair/typebox';
import { Int32, Nullable, RequiredLine, Timestamp } from '../schema-helpers.js';
import { ZoneGeometry } from './geojson.js';

/*
 * Geo-zones after EUROCAE ED-269 (PRODUCT.md "Review"). The schemas fix the
 * shape; rules across fields (lower < upper, schedule start < end, a CTR
 * exemption ceiling only on CTR zones) and the geometry rules are checked by the
 * service's zone domain, which reports them with the same dot paths.
 */

export const ZONE_TYPES = ['CTR', 'AIRPORT', 'MILITARY', 'NATURE', 'TEMPORARY', 'OTHER'] as const;
export type ZoneType = (typeof ZONE_TYPES)[number];

/** USPACE: ED-318's U-space airspace, where flights need U-space services (EU 2021/664). */
export const ZONE_RESTRICTIONS = ['PROHIBITED', 'REQ_AUTHORISATION', 'CONDITIONAL', 'NO_RESTRICTION', 'USPACE'] as const;
export type ZoneRestriction = (typeof ZONE_RESTRICTIONS)[number];

/** Metres above ground; 100 km is far above any airspace a drone can reach. */
export const ZONE_LIMIT_MAX_M = 100_000;

/** An import's `id` (or a zone id in a path): short, URL-safe, e.g. `nl-eham-ctr`. */
export const ZONE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$';

// `type: [..., 'null']` rather than a union keeps ajv at one message per field.
const ZoneSchedule = Type.Unsafe<{ start: string; end: string } | null>({
  type: ['object', 'null'],
  properties: {
    start: Type.String({ format: 'date-time', examples: ['2026-06-20T08:00:00+00:00'] }),
    end: Type.String({ format: 'date-time', examples: ['2026-06-20T23:00:00+00:00'] }),
  },
  required: ['start', 'end'],
  additionalProperties: false,
  description: 'the zone applies only between start and end (ISO 8601 with offset); null: always',
});

const CtrExemptionCeiling = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  format: 'int32',
  minimum: 0,
  maximum: ZONE_LIMIT_MAX_M,
  description: 'CTR zones only: operators holding a CTR exemption fly without a review up to this height (m above ground)',
});

const zoneFieldSchemas = {
  name: RequiredLine({ maxLength: 200, examples: ['Schiphol CTR'] }),
  type: Type.Unsafe<ZoneType>({ type: 'string', enum: [...ZONE_TYPES] }),
  restriction: Type.Unsafe<ZoneRestriction>({ type: 'string', enum: [...ZONE_RESTRICTIONS] }),
  lower_limit_m: Int32({ minimum: 0, maximum: ZONE_LIMIT_MAX_M, description: 'm above ground' }),
  upper_limit_m: Int32({
    minimum: 0,
    maximum: ZONE_LIMIT_MAX_M,
    description: 'm above ground, greater than lower_limit_m',
  }),
  schedule: Type.Optional(ZoneSchedule),
  authority: RequiredLine({
    maxLength: 100,
    description: 'who reviews requests touching the zone, e.g. LVNL, MIL, NATURE',
  }),
  ctr_exemption_ceiling_m: Type.Optional(CtrExemptionCeiling),
};

/** Every zone field but the geometry: what a validator checks by schema before the geometry rules. */
export const GeoZoneFields = Type.Object(zoneFieldSchemas);
export type GeoZoneFields = Static<typeof GeoZoneFields>;

/** POST /api/zones and PUT /api/zones/{id}. */
export const GeoZoneInput = Type.Object({ ...zoneFieldSchemas, geometry: ZoneGeometry }, { $id: 'GeoZoneInput', additionalProperties: false });
export type GeoZoneInput = Static<typeof GeoZoneInput>;

const LangText = Type.Object({ text: Type.String(), lang: Type.String() });

const VerticalLimitRecord = Type.Object(
  {
    value: Type.Number({ format: 'double' }),
    reference: Type.Unsafe<'AGL' | 'AMSL' | 'WGS84'>({ type: 'string', enum: ['AGL', 'AMSL', 'WGS84'] }),
    uom: Type.Unsafe<'m' | 'ft'>({ type: 'string', enum: ['m', 'ft'] }),
  },
  { description: 'a limit as published: value in uom above the reference (ground, mean sea level, WGS-84 ellipsoid)' },
);

const DayMomentRecord = Type.Object(
  {
    time: Type.Optional(Type.String({ description: 'a time of day with its UTC offset, e.g. 08:00:00+01:00' })),
    event: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['BMCT', 'SR', 'SS', 'EECT'] })),
  },
  { description: 'either time or event' },
);

const ApplicabilityRecord = Type.Object(
  {
    permanent: Type.Boolean(),
    periods: Type.Array(
      Type.Object({
        start: Nullable(Type.String()),
        end: Nullable(Type.String()),
        daily: Type.Array(
          Type.Object({
            days: Type.Array(Type.Unsafe<string>({ type: 'string', enum: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] })),
            start: DayMomentRecord,
            end: DayMomentRecord,
          }),
          { description: 'empty: the whole of [start, end)' },
        ),
      }),
    ),
  },
  { description: 'permanent, or active only in its periods' },
);

const AuthorityRecord = Type.Object({
  name: Nullable(Type.String()),
  names: Type.Array(LangText),
  service: Nullable(Type.String()),
  contact_name: Nullable(Type.String()),
  site_url: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  purpose: Nullable(Type.String({ description: 'AUTHORIZATION, NOTIFICATION or INFORMATION' })),
  interval_before: Nullable(Type.String({ description: 'ISO 8601 duration: how long before the flight to ask' })),
});

const PublishedRecord = Type.Object(
  {
    format: Type.Unsafe<'ED-269' | 'ED-318'>({ type: 'string', enum: ['ED-269', 'ED-318'] }),
    published_type: Type.String(),
    variant: Nullable(Type.String()),
    names: Type.Array(LangText),
    messages: Type.Array(LangText),
    reasons: Type.Array(Type.String()),
    other_reason_info: Type.Array(LangText),
    restriction_conditions: Nullable(Type.String()),
    region: Type.Unsafe<number | null>({ type: ['integer', 'null'], format: 'int32' }),
    regulation_exemption: Nullable(Type.String()),
    u_space_class: Nullable(Type.String()),
    extended_properties: Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'] }),
    data_source: Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'] }),
    authorities: Type.Array(AuthorityRecord),
  },
  { description: 'ED-269 / ED-318 zones: everything the authority published, as published' },
);

/** A stored zone (inside `data`). Texts in several languages come in the one `Accept-Language` prefers, and all of them. */
export const GeoZoneRecord = Type.Object(
  {
    id: Type.String({ pattern: ZONE_ID_PATTERN }),
    ...zoneFieldSchemas,
    restriction: Type.Unsafe<ZoneRestriction>({ type: 'string', enum: [...ZONE_RESTRICTIONS] }),
    lower_limit_m: Int32({ minimum: 0, maximum: ZONE_LIMIT_MAX_M, description: 'm above the lower limit’s reference, rounded down' }),
    upper_limit_m: Int32({ minimum: 0, maximum: ZONE_LIMIT_MAX_M, description: 'm above the upper limit’s reference, rounded up' }),
    schedule: ZoneSchedule,
    ctr_exemption_ceiling_m: CtrExemptionCeiling,
    geometry: ZoneGeometry,
    identifier: Nullable(Type.String({ description: 'the published ED-269 / ED-318 identifier' })),
    country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-3' })),
    status: Type.Unsafe<'published' | 'retired'>({ type: 'string', enum: ['published', 'retired'] }),
    version: Int32({ minimum: 0 }),
    dataset_id: Nullable(Type.String()),
    message: Nullable(Type.String({ description: 'the published message in the preferred language' })),
    volumes: Type.Array(Type.Object({ lower: VerticalLimitRecord, upper: VerticalLimitRecord, geometry: Type.Optional(ZoneGeometry) }), {
      description: 'each volume’s limits as published; its own geometry when the zone has several',
    }),
    applicability: ApplicabilityRecord,
    active_intervals: Type.Optional(
      Type.Array(Type.Object({ start: Timestamp, end: Timestamp }), { description: 'when the zone is active within the asked window' }),
    ),
    published: Type.Union([PublishedRecord, Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'GeoZoneRecord' },
);
export type GeoZoneRecord = Static<typeof GeoZoneRecord>;

/** The most features one import may carry. */
export const ZONE_IMPORT_MAX_FEATURES = 5000;

/** The zone fields of one imported feature, with an optional `id` that upserts that zone. */
export const ZoneImportProperties = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: ZONE_ID_PATTERN })),
    ...zoneFieldSchemas,
  },
  { additionalProperties: false },
);
export type ZoneImportProperties = Static<typeof ZoneImportProperties>;

/** One feature of an import: the zone's fields in `properties`, its area in `geometry`. */
export const ZoneImportFeature = Type.Object(
  {
    type: Type.Literal('Feature'),
    id: Type.Optional(Type.String({ pattern: ZONE_ID_PATTERN })),
    properties: ZoneImportProperties,
    geometry: ZoneGeometry,
  },
  { additionalProperties: false },
);

/**
 * POST /api/zones/import: a FeatureCollection whose features' `properties` hold
 * the zone fields; an `id` (on the feature, or in its properties) upserts that zone.
 */
export const ZoneImport = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'a label of the collection; not stored' })),
    features: Type.Array(ZoneImportFeature, { minItems: 1, maxItems: ZONE_IMPORT_MAX_FEATURES }),
  },
  { $id: 'ZoneImport', additionalProperties: false },
);
export type ZoneImport = Static<typeof ZoneImport>;
