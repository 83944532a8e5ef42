import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Double, Int32, LargeListQuery, Line, Nullable, RequiredFreeText, RequiredLine, Timestamp, UtcTimestamp, Uuid } from '../schema-helpers.js';
import { FLIGHT_REQUEST_STATUSES, FlightRequestStatus } from './status.js';
import { FlightArea, VolumeGeometry } from './geojson.js';
import { ReviewItemRecord } from './reviews.js';
import { SharedVolume } from './shared-volume.js';
import { Altitude, FlightVolumeRecord } from './volumes.js';

/** PRODUCT.md "Rules": the category screening derives from the free-text `aircraft_type`. */
export const AIRCRAFT_CATEGORIES = ['multirotor', 'fixed_wing', 'vtol', 'helicopter', 'airship', 'other'] as const;
export type AircraftCategory = (typeof AIRCRAFT_CATEGORIES)[number];

const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
const LEAP_YEAR = '(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';

/**
 * RFC 3339 in UTC with a trailing `Z`, naming a real instant: months 01..12, days that exist in
 * the month (29 February in leap years only), hours 00..23. The document says all of it, so a
 * client or fuzzer reading the schema never sends a time the service refuses for its form
 * (`0000-00-00T00:00:00Z`, `2027-02-30T10:00:00Z`). Requests are strings, not `date-time`: the API
 * takes the `Z` form only (PRODUCT.md), and generators would send a date-time as `+00:00`.
 */
export const UTC_TIMESTAMP_PATTERN = `^(?:\\d{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?Z$`;

function utcTimestamp(attribute: string) {
  return Type.String({
    pattern: UTC_TIMESTAMP_PATTERN,
    examples: ['2026-12-01T10:00:00Z'],
    'x-error-message': `The ${attribute} field must be a valid date: an RFC 3339 UTC timestamp ending in Z, e.g. 2026-12-01T10:00:00Z.`,
  });
}

const optionalText = Type.Optional(Nullable(Line({ maxLength: 255 })));

/** PRODUCT-style limits of `volumes` (README, "Volumes"); the time and height rules are the spec fields' own. */
export const VOLUME_LIMITS = { maxVolumes: 20, maxPositionsPerVolume: 2000 } as const;

/** A Point is a circle: its radius is required, and only a Point has one (generators read no `if`, validators and fuzzers do). */
const CIRCLE_RULE = {
  if: { properties: { geometry: { properties: { type: { const: 'Point' } }, required: ['type'] } }, required: ['geometry'] },
  then: { required: ['radius_m'] },
  else: { properties: { radius_m: { not: {} } } },
};

/**
 * One 4-D volume of a submission (F3548's `Volume4D`): an area, a band between two
 * altitudes of one reference, and a window of its own. The geometry is checked by
 * the geometry rules (as flight_area's features are), so it is `Unknown` here.
 */
export const FlightVolumeInput = Type.Object(
  {
    geometry: Type.Unknown({
      description: `a GeoJSON Polygon or MultiPolygon, or a Point with radius_m (a circle); at most ${VOLUME_LIMITS.maxPositionsPerVolume} positions`,
    }),
    radius_m: Type.Optional(
      Double({ minimum: 1, maximum: 5000, description: 'with a Point geometry (and only then): the circle radius, 1..5000 metres' }),
    ),
    altitude_lower: Altitude,
    altitude_upper: Altitude,
    start_time: utcTimestamp('start time'),
    end_time: utcTimestamp('end time'),
  },
  { $id: 'FlightVolumeInput', additionalProperties: false, ...CIRCLE_RULE },
);
export type FlightVolumeInput = Static<typeof FlightVolumeInput>;

const VOLUMES_OPTIONS = {
  minItems: 1,
  maxItems: VOLUME_LIMITS.maxVolumes,
  description:
    `1..${VOLUME_LIMITS.maxVolumes} 4-D volumes (area, band, window). Without them, flight_area, start_time, end_time and ` +
    'max_altitude are required and form one volume from 0 to max_altitude m AGL. With them, flight_area must be left out ' +
    "(the volumes' areas form it) and start_time, end_time and max_altitude may be: when sent they must equal the " +
    "volumes' earliest start, latest end and highest upper limit in metres above ground (rounded up).",
};

/** The spec's fields: required without `volumes`; with them each may be left out (it is derived) or must agree. */
export const SPEC_VOLUME_FIELDS = ['start_time', 'end_time', 'max_altitude', 'flight_area'] as const;

/**
 * POST /api/flight-requests. Bounds that come from configuration (max_altitude,
 * the time rules) are checked in the domain, so this schema fixes the shape and
 * the texts (trimmed, not blank, no control characters); flight_area is checked by
 * the geometry rules.
 */
export const FlightRequestCreate = Type.Object(
  {
    operator_uuid: Uuid,
    operator_name: RequiredLine({ maxLength: 255 }),
    operator_email: Type.String({ minLength: 1, maxLength: 255, format: 'email' }),
    operator_phone: RequiredLine({ maxLength: 50 }),
    operator_company: optionalText,
    operational_authorisation_number: optionalText,
    start_time: Type.Optional(utcTimestamp('start time')),
    end_time: Type.Optional(utcTimestamp('end time')),
    max_altitude: Type.Optional(Int32({ minimum: 1, description: 'metres above ground, 1..500 by default (configurable)', examples: [120] })),
    aircraft_type: RequiredLine({
      maxLength: 100,
      description: 'a kind of aircraft, free text (not blank); stored as sent, its category is derived for screening',
      examples: ['DJI Matrice 300'],
    }),
    purpose: RequiredFreeText({ maxLength: 1000, description: 'free text, not blank; tabs and line breaks allowed', examples: ['Roof inspection'] }),
    flight_area: Type.Optional(
      Type.Unknown({
        description:
          'GeoJSON FeatureCollection of 1..50 Polygon/MultiPolygon features (or Point with properties.radius_m 1..5000), at most 10,000 positions and 1,000 km² in all',
      }),
    ),
    volumes: Type.Optional(Type.Array(FlightVolumeInput, VOLUMES_OPTIONS)),
  },
  {
    $id: 'FlightRequestCreate',
    additionalProperties: false,
    // Generators read no `if`; validators and fuzzers do: without volumes, the spec's fields are required.
    if: { required: ['volumes'] },
    else: { required: [...SPEC_VOLUME_FIELDS] },
  },
);
export type FlightRequestCreate = Static<typeof FlightRequestCreate>;

/** The submission as the OpenAPI document shows it: the geometries with their GeoJSON schemas (the service checks them in code). */
export const FlightRequestCreateDocument: TSchema = {
  ...FlightRequestCreate,
  properties: {
    ...FlightRequestCreate.properties,
    flight_area: FlightArea,
    volumes: Type.Optional(
      Type.Array(
        Type.Object(
          { ...FlightVolumeInput.properties, geometry: VolumeGeometry },
          { $id: 'FlightVolumeInput', additionalProperties: false, ...CIRCLE_RULE },
        ),
        VOLUMES_OPTIONS,
      ),
    ),
  },
};

/** What an amendment may change; every other field of a request is fixed once it is submitted. */
export const AMENDABLE_FIELDS = ['start_time', 'end_time', 'max_altitude', 'purpose', 'flight_area', 'volumes'] as const;
export type AmendableField = (typeof AMENDABLE_FIELDS)[number];

/**
 * PATCH /api/flight-requests/{uuid}: at least one amendable field, each under the submission's own
 * schema (picked from FlightRequestCreate, never restated), and nothing else.
 */
// A fresh object of the picked properties: the submission's rule that the spec's fields are required without volumes is not an amendment's.
export const FlightRequestAmendment = Type.Partial(Type.Object(Type.Pick(FlightRequestCreate, AMENDABLE_FIELDS).properties), {
  $id: 'FlightRequestAmendment',
  additionalProperties: false,
  minProperties: 1,
});
export type FlightRequestAmendment = Static<typeof FlightRequestAmendment>;

/** How a flight came to be Ended: its operator ended it, its window closed while it flew, or its window closed before it was activated. */
export const END_REASONS = ['ended_by_operator', 'window_closed', 'not_activated'] as const;
export type EndReason = (typeof END_REASONS)[number];

export const FlightAreaSummary = Type.Object({
  bbox: Type.Array(Double(), { minItems: 4, maxItems: 4, description: '[west, south, east, north]' }),
  centroid: Type.Array(Double(), { minItems: 2, maxItems: 2, description: '[longitude, latitude]' }),
  area_m2: Double({ minimum: 0 }),
  feature_count: Int32({ minimum: 1 }),
});
export type FlightAreaSummary = Static<typeof FlightAreaSummary>;

export const FindingRecord = Type.Object({
  code: Type.String({
    description:
      'ZONE_PROHIBITED | ZONE_REQUIRES_AUTHORISATION | CTR_EXEMPTION_APPLIED | ZONE_CONDITIONAL | ZONE_USPACE | ZONE_INFORMATION (an unrestricted zone with a published message) | ALTITUDE_ABOVE_LIMIT | DECONFLICTION_OVERLAP',
  }),
  message: Type.String(),
  zone_id: Nullable(Type.String()),
  zone_name: Nullable(Type.String()),
  authority: Nullable(Type.String()),
  zone_identifier: Type.Optional(Type.String({ description: 'zones as an authority publishes them (ED-269 / ED-318): their identifier' })),
  zone_country: Type.Optional(Nullable(Type.String({ description: 'and their country (ISO 3166-1 alpha-3)' }))),
  terrain_unknown: Type.Optional(
    Type.Literal(true, { description: 'a zone limit not above ground counted as met: no terrain model covers the flight area' }),
  ),
  volume: Type.Optional(
    Int32({ minimum: 0, description: 'A request submitted with volumes: the index in `volumes` of the volume this finding is about.' }),
  ),
  conflict: Type.Optional(
    Type.Object(SharedVolume.properties, {
      description:
        'DECONFLICTION_OVERLAP only: the volume this flight shares with another operator’s approved flight (time window, ' +
        'altitude band, area). Nothing identifies the other flight or its operator.',
    }),
  ),
});
export type FindingRecord = Static<typeof FindingRecord>;

export const StatusHistoryRecord = Type.Object({
  status: FlightRequestStatus,
  at: Timestamp,
  actor: Type.String({ description: 'operator, admin, screening, reviewer:<authority>, system' }),
  reason: Nullable(Type.String()),
});
export type StatusHistoryRecord = Static<typeof StatusHistoryRecord>;

/** The flight request as every route returns it (inside `data`). */
export const FlightRequestRecord = Type.Object(
  {
    uuid: Uuid,
    operator_uuid: Uuid,
    status: FlightRequestStatus,
    operator_name: Type.String(),
    operator_email: Type.String(),
    operator_phone: Type.String(),
    operator_company: Nullable(Type.String()),
    operational_authorisation_number: Nullable(Type.String()),
    start_time: UtcTimestamp,
    end_time: UtcTimestamp,
    max_altitude: Int32({ minimum: 1 }),
    aircraft_type: Type.String({ description: 'as submitted' }),
    aircraft_category: Type.String({ enum: [...AIRCRAFT_CATEGORIES], description: 'derived from aircraft_type; what screening reads' }),
    purpose: Type.String(),
    area: FlightAreaSummary,
    flight_area: Type.Optional(FlightArea),
    volumes: Type.Array(FlightVolumeRecord, {
      minItems: 1,
      description:
        'The 4-D volumes: as submitted, or the one the spec fields form (flight_area from 0 to max_altitude m AGL over the window). ' +
        "start_time/end_time are the volumes' envelope, max_altitude their highest upper limit in metres above ground.",
    }),
    review: Type.Object({
      findings: Type.Array(FindingRecord),
      items: Type.Array(ReviewItemRecord),
      complete: Type.Boolean({ description: 'true when no item is pending' }),
    }),
    cancellation: Type.Union([Type.Object({ reason: Type.String(), cancelled_at: Timestamp }), Type.Null()]),
    rescission: Type.Union([
      Type.Object(
        { zone_id: Type.String(), zone_name: Type.String(), reason: Type.String(), rescinded_at: Timestamp },
        { description: 'Set when a zone created or changed after the approval prohibits the flight (status Rescinded).' },
      ),
      Type.Null(),
    ]),
    suspension: Type.Optional(
      Type.Union([
        Type.Object(
          { zone_ids: Type.Array(Type.String()), suspended_at: Timestamp },
          {
            description:
              'Set while the request is Suspended: the authorisation zones created or changed after the approval whose authorities must approve it again. The airspace stays reserved meanwhile.',
          },
        ),
        Type.Null(),
      ]),
    ),
    activation: Type.Union([
      Type.Object(
        {
          activated_at: Nullable(Timestamp),
          ended_at: Nullable(Timestamp),
          end_reason: Type.Union([Type.String({ enum: [...END_REASONS] }), Type.Null()]),
        },
        { description: 'Set once the flight is activated or has ended (statuses Activated and Ended).' },
      ),
      Type.Null(),
    ]),
    revision: Int32({ minimum: 1, description: '1 as submitted, one more for each amendment (PATCH) that changed the request.' }),
    status_history: Type.Array(StatusHistoryRecord),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'FlightRequestRecord' },
);
export type FlightRequestRecord = Static<typeof FlightRequestRecord>;

/** GET /api/flight-requests/{uuid}: `include_geometry` is a boolean in Laravel's forms. */
export const FlightRequestGetQuery = Type.Object({
  include_geometry: Type.Optional(
    Type.Unsafe<'true' | 'false' | '1' | '0'>({
      type: 'string',
      enum: ['true', 'false', '1', '0'],
      'x-error-message': 'The include geometry field must be true or false.',
    }),
  ),
});
export type FlightRequestGetQuery = Static<typeof FlightRequestGetQuery>;

/** One status in any case (`[pP][eE]...`: JSON Schema patterns have no flags). */
const ANY_CASE_STATUS = `(?:${FLIGHT_REQUEST_STATUSES.map((status) =>
  [...status].map((letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`).join(''),
).join('|')})`;

/** A comma-separated list of statuses, each trimmed, at least one (an empty `status=` is refused). */
const STATUS_LIST_PATTERN = `^\\s*${ANY_CASE_STATUS}\\s*(?:,\\s*${ANY_CASE_STATUS}\\s*)*$`;

/** GET /api/flight-requests (PRODUCT.md "List"); the domain reads `status` into the list of statuses. */
export const FlightRequestListQuery = Type.Object({
  from_date: Type.Optional(Type.String({ format: 'date' })),
  to_date: Type.Optional(Type.String({ format: 'date' })),
  status: Type.Optional(
    Type.String({
      pattern: STATUS_LIST_PATTERN,
      description: 'one or more statuses, comma-separated, case-insensitive',
      examples: ['Pending', 'approved,Pending'],
      'x-error-message': `The selected status is invalid. Allowed values: ${FLIGHT_REQUEST_STATUSES.join(', ')}.`,
    }),
  ),
  operator_uuid: Type.Optional(Type.String({ format: 'uuid', description: 'admins only' })),
  ...LargeListQuery,
});
export type FlightRequestListQuery = Static<typeof FlightRequestListQuery>;

/** DELETE /api/flight-requests/{uuid} */
export const CancelBody = Type.Object({ reason: RequiredFreeText({ maxLength: 500 }) }, { $id: 'CancelBody', additionalProperties: false });
export type CancelBody = Static<typeof CancelBody>;

/** POST /api/flight-requests/{uuid}/activate: nothing to say (an empty object, or no body). */
export const FlightActivationBody = Type.Object({}, { $id: 'FlightActivationBody', additionalProperties: false });
export type FlightActivationBody = Static<typeof FlightActivationBody>;

/** POST /api/flight-requests/{uuid}/end: optionally why, kept as the history entry's reason. */
export const FlightEndBody = Type.Object(
  { reason: Type.Optional(RequiredFreeText({ maxLength: 500 })) },
  { $id: 'FlightEndBody', additionalProperties: false },
);
export type FlightEndBody = Static<typeof FlightEndBody>;
