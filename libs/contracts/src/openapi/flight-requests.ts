import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { FlightArea } from '../flight-requests/geojson.js';
import {
  CancelBody,
  FlightActivationBody,
  FlightEndBody,
  FlightRequestAmendment,
  FlightRequestCreateDocument,
  FlightRequestGetQuery,
  FlightRequestListQuery,
  FlightRequestRecord,
} from '../flight-requests/requests.js';
import { ReviewDecision, ReviewListQuery, ReviewQueueEntry } from '../flight-requests/reviews.js';
import { ZoneImportResult, ZoneListQuery, ZoneQuery } from '../flight-requests/zone-admin.js';
import { GeoZoneInput, GeoZoneRecord, ZONE_ID_PATTERN, ZoneImport } from '../flight-requests/zones.js';
import { amendFlightRequestExample, cancelFlightRequestExample, endFlightExample, submitFlightRequestExample } from './examples.js';
import { DataEnvelope, ErrorBody, Paginated, PaginatedOrCursor, Uuid, ValidationErrorBody } from '../schema-helpers.js';

/**
 * OpenAPI 3.1 path items of the flight-request-service: flight requests,
 * the review queue and decisions, and geo-zone administration. Schemas are
 * the TypeBox ones the service validates with.
 */
type PathItem = Record<string, unknown>;

const json = (schema: TSchema, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });

function response(description: string, schema?: TSchema, headers?: Record<string, unknown>): PathItem {
  return { description, ...(headers ? { headers } : {}), ...(schema ? { content: json(schema) } : {}) };
}

function queryParameters(schema: TObject): PathItem[] {
  return Object.entries(schema.properties).map(([name, property]) => ({ name, in: 'query', required: false, schema: property }));
}

const location = { Location: { description: 'Path of the new resource.', schema: { type: 'string' } } };
const forbidden = response("The key's role may not do this.", ErrorBody);
const notFound = response('No such resource, or one that is not yours: `{"message":"Not Found."}`.', ErrorBody);
const invalid = response('Validation failed; every failing field is listed at once (nested fields in dot notation).', ValidationErrorBody);
const conflict = (description: string) => response(description, ErrorBody);

const flightRequestUuid = { name: 'uuid', in: 'path', required: true, description: "The flight request's uuid.", schema: Uuid };
const reviewItemId = { name: 'id', in: 'path', required: true, description: "The review item's id.", schema: Uuid };
const zoneId = { name: 'id', in: 'path', required: true, description: "The zone's id.", schema: Type.String({ pattern: ZONE_ID_PATTERN }) };
const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Up to 255 characters. A retry with the same key and body within 24 h returns the first response (201, same record); ' +
    'the same key with another body, or after 24 h, is 409.',
  schema: Type.String({ minLength: 1, maxLength: 255 }),
};

const submitBody = FlightRequestCreateDocument;

const getFlightRequest = (operationId: string, alias: string) => ({
  tags: ['Flight requests'],
  operationId,
  summary: 'Get a flight request',
  description:
    `${alias} With \`include_geometry=true\` (or \`1\`) the record carries the stored \`flight_area\` ` +
    '(right-hand rule); otherwise only the `area` summary.',
  parameters: queryParameters(FlightRequestGetQuery),
  responses: { '200': response('The flight request.', DataEnvelope(FlightRequestRecord)), '404': notFound, '422': invalid },
});

const cancelFlightRequest = (operationId: string) => ({
  tags: ['Flight requests'],
  operationId,
  summary: 'Cancel a flight request',
  description:
    'From Pending or Approved while the flight window has not ended; pending review items are withdrawn. ' + 'Operator (own requests) or admin keys.',
  requestBody: { required: true, content: json(CancelBody, cancelFlightRequestExample) },
  responses: {
    '200': response('The cancelled request.', DataEnvelope(FlightRequestRecord)),
    '403': forbidden,
    '404': notFound,
    '409': conflict('Not cancellable in its state (e.g. "A Rejected flight request cannot be cancelled.") or its window has ended.'),
    '422': invalid,
  },
});

const amendBody = {
  ...FlightRequestAmendment,
  properties: { ...FlightRequestAmendment.properties, flight_area: Type.Optional(FlightArea) },
};

const amendFlightRequest = (operationId: string) => ({
  tags: ['Flight requests'],
  operationId,
  summary: 'Amend a flight request',
  description:
    'Changes `start_time`, `end_time`, `max_altitude`, `purpose` or `flight_area` of a Pending or Approved request whose ' +
    'window has not started; each field is checked exactly as on submission, any other field is a 422. The amended ' +
    'request is screened again. A review approval still holds when the same authority reviews the same zone (or the ' +
    'same altitude or deconfliction question) and the amended flight lies within what was approved (its area inside, ' +
    'its window within, its ceiling no higher); other items are pending again. When every item it needs is approved (or ' +
    'it needs none), the request is approved again once its new airspace is reserved: a new `Approved` entry in ' +
    "`status_history`, a new authorisation, the old one reported revoked. Otherwise (or when another operator's flight " +
    'holds the new airspace: a deconfliction item) it is Pending, and the old authorisation is revoked. An amendment ' +
    'into a PROHIBITED zone is refused (409) and changes nothing. `revision` counts the amendments; each sends an ' +
    '`amendment` webhook. Sending the same amendment again changes nothing and answers the request as it is.',
  requestBody: { required: true, content: json(amendBody, amendFlightRequestExample) },
  responses: {
    '200': response('The amended request (or, for a repeat, the request as it is).', DataEnvelope(FlightRequestRecord)),
    '403': forbidden,
    '404': notFound,
    '409': conflict(
      'Not amendable in its state (e.g. "An Activated flight request cannot be amended."), its window has started, the ' +
        'amended flight enters a prohibited zone, or the request changed meanwhile (try again).',
    ),
    '422': invalid,
  },
});

const activateFlight = {
  tags: ['Flight requests'],
  operationId: 'activateFlightRequest',
  summary: 'Activate an approved flight (the flight starts)',
  description:
    'The operator of an Approved request starts its flight, inside its window: the request becomes `Activated`, keeps ' +
    'its airspace, and its authorisation stays valid. Operator keys only (their own requests). No body, or `{}`.',
  requestBody: { required: false, content: json(FlightActivationBody, {}) },
  responses: {
    '200': response('The activated request.', DataEnvelope(FlightRequestRecord)),
    '403': forbidden,
    '404': notFound,
    '409': conflict('Not Approved (e.g. "A Pending flight request cannot be activated."), or outside its flight window.'),
    '422': invalid,
  },
};

const endFlight = {
  tags: ['Flight requests'],
  operationId: 'endFlightRequest',
  summary: 'End an activated flight',
  description:
    'An Activated flight becomes `Ended` (`activation.end_reason`: `ended_by_operator`) and gives its airspace back; an ' +
    'optional `reason` is kept in `status_history`. An Approved flight that never started is cancelled instead (DELETE). ' +
    'Flights nobody ends are ended by the system: an Approved one when its window closes (`not_activated`), an ' +
    'Activated one 15 minutes (configurable) after it (`window_closed`). Operator (own requests) or admin keys.',
  requestBody: { required: false, content: json(FlightEndBody, endFlightExample) },
  responses: {
    '200': response('The ended request.', DataEnvelope(FlightRequestRecord)),
    '403': forbidden,
    '404': notFound,
    '409': conflict('Not Activated (e.g. "An Approved flight that was not activated cannot be ended; cancel it instead.").'),
    '422': invalid,
  },
};

/** Built per document so the submission example's window lies ahead of `now`. The spec's `/api/v1` form of the record's route is documented too. */
export const flightRequestPaths = (now: Date): Record<string, PathItem> => ({
  '/api/flight-requests': {
    post: {
      tags: ['Flight requests'],
      operationId: 'submitFlightRequest',
      summary: 'Submit a flight request',
      description:
        'Operator keys name their own `operator_uuid`; admins may name any registered operator (reviewers: 403). ' +
        'Times are RFC 3339 UTC with `Z`; the end is after the start, the start at most 5 minutes in the past and ' +
        '90 days ahead, the window at most 24 h; `max_altitude` 1..500 m; `aircraft_type` any kind of aircraft ' +
        '(free text up to 100 characters, stored as sent; `aircraft_category` in the record is derived from it); ' +
        '`purpose` 1..1000 characters, not blank. A ring crossing the antimeridian is refused: split the area there ' +
        'into a MultiPolygon (RFC 7946 §3.1.9). ' +
        'In place of `flight_area`, the times and `max_altitude`, `volumes` may list 1..20 4-D volumes (a geometry, ' +
        '`altitude_lower` and `altitude_upper` as `{value, reference: AGL|AMSL|WGS84, units: m|ft}`, and a window of ' +
        'their own); each is screened and deconflicted on its own, and the record shows the spec fields as their envelope. ' +
        'Screening runs at once: a PROHIBITED zone rejects, authorisation zones, altitude above 120 m and overlap ' +
        "with another operator's approved flight open review items, otherwise the request is approved. " +
        'The answer shows the outcome in `status`, `review` and `status_history`.',
      parameters: [idempotencyKey],
      requestBody: { required: true, content: json(submitBody, submitFlightRequestExample(now)) },
      responses: {
        '201': response('Created (or an idempotent replay of the first answer).', DataEnvelope(FlightRequestRecord), location),
        '403': response('An operator key naming another operator, or a reviewer key.', ErrorBody),
        '409': conflict('The Idempotency-Key was used with another body, or more than 24 h ago.'),
        '422': invalid,
      },
    },
    get: {
      tags: ['Flight requests'],
      operationId: 'listFlightRequests',
      summary: 'List flight requests, newest first',
      description:
        'Operators see their own; reviewers those with a review item of their authority; admins all (optionally one ' +
        '`operator_uuid`). `from_date`/`to_date` select requests whose window overlaps [from_date 00:00, to_date 24:00) ' +
        "in the operator's timezone (UTC when it has none, and for lists not limited to one operator). `status` is " +
        'case-insensitive and may list several, comma-separated. The record leaves out `flight_area`. `total` counts up ' +
        'to 10,000; `page` goes up to 1,000, and `cursor` (`meta.next_cursor`) walks the list past that, each item once ' +
        'however many are added meanwhile.',
      parameters: queryParameters(FlightRequestListQuery),
      responses: {
        '200': response('A page of flight requests (with `cursor`, the cursor page).', PaginatedOrCursor(FlightRequestRecord)),
        '422': invalid,
      },
    },
  },
  '/api/flight-requests/{uuid}': {
    parameters: [flightRequestUuid],
    get: getFlightRequest('getFlightRequest', 'The spec shows this route as `/api/v1/flight-requests/{uuid}`.'),
    patch: amendFlightRequest('amendFlightRequest'),
    delete: cancelFlightRequest('cancelFlightRequest'),
  },
  '/api/flight-requests/{uuid}/activate': { parameters: [flightRequestUuid], post: activateFlight },
  '/api/flight-requests/{uuid}/end': { parameters: [flightRequestUuid], post: endFlight },
  '/api/v1/flight-requests/{uuid}': {
    parameters: [flightRequestUuid],
    get: getFlightRequest('getFlightRequestV1', 'The route as the spec shows it; the same as `/api/flight-requests/{uuid}`.'),
    patch: amendFlightRequest('amendFlightRequestV1'),
    delete: cancelFlightRequest('cancelFlightRequestV1'),
  },
  '/api/reviews': {
    get: {
      tags: ['Reviews'],
      operationId: 'listReviewItems',
      summary: 'The review queue: pending items, oldest request first',
      description:
        "Reviewers see their own authority's items; admins every authority's, or one with `authority`. `total` counts up " +
        'to 10,000; `page` goes up to 1,000, and `cursor` (`meta.next_cursor`) walks the queue past that.',
      parameters: queryParameters(ReviewListQuery),
      responses: {
        '200': response('A page of pending review items (with `cursor`, the cursor page).', PaginatedOrCursor(ReviewQueueEntry)),
        '403': forbidden,
        '422': invalid,
      },
    },
  },
  '/api/reviews/{id}/decision': {
    parameters: [reviewItemId],
    post: {
      tags: ['Reviews'],
      operationId: 'decideReviewItem',
      summary: 'Approve or reject a review item',
      description:
        "A reviewer of the item's authority, or an admin. A rejection rejects the request and cascade-rejects its " +
        'other pending items (`cascade_rejection`); the last decision completes the group (`review_complete`), and ' +
        'approving every item approves the request.',
      requestBody: { required: true, content: json(ReviewDecision) },
      responses: {
        '200': response('The decided item with its request.', DataEnvelope(ReviewQueueEntry)),
        '403': response("The item belongs to another authority, or the key's role may not decide.", ErrorBody),
        '404': notFound,
        '409': conflict('The item is no longer pending (decided, cascade-rejected or withdrawn).'),
        '422': invalid,
      },
    },
  },
  '/api/zones': {
    get: {
      tags: ['Geo-zones'],
      operationId: 'listZones',
      summary: 'List geo-zones (every key: geo-awareness)',
      description:
        'Published zones for every key, filtered by `bbox` and a window `from`/`to` (both, at most 31 days; each zone then ' +
        'carries its `active_intervals` in it). Texts come in the language `Accept-Language` prefers, all languages beside. ' +
        '`status=retired` (admins only) lists zones deleted or retired by a newer dataset issue.',
      parameters: queryParameters(ZoneListQuery),
      responses: { '200': response('A page of zones.', Paginated(GeoZoneRecord)), '403': forbidden, '422': invalid },
    },
    post: {
      tags: ['Geo-zones'],
      operationId: 'createZone',
      summary: 'Create a geo-zone (admin)',
      requestBody: { required: true, content: json(GeoZoneInput) },
      responses: { '201': response('Created.', DataEnvelope(GeoZoneRecord), location), '403': forbidden, '422': invalid },
    },
  },
  '/api/zones/import': {
    post: {
      tags: ['Geo-zones'],
      operationId: 'importZones',
      summary: 'Import geo-zones: an ED-269 or ED-318 document as published, or a FeatureCollection (admin)',
      description:
        'Recognised by shape: an ED-269 document (`UASZoneList`), an ED-318 document (a FeatureCollection with `metadata`, ' +
        'zones with `identifier` and `geometry.layer`; validated against the ED-318 JSON Schemas), or the FeatureCollection ' +
        "below, whose features' properties hold the zone fields and whose `id` (on the feature or in the properties) upserts " +
        'that zone. Up to 5,000 zones (body up to 16 MiB). Any failing zone makes it a 422 naming each path (and the ' +
        "zone's identifier), and nothing is written. An ED-269 / ED-318 document is an issue of its dataset: the same " +
        'issue again changes nothing (`dataset.already_imported`), an older one is a 422, a newer one retires the zones it ' +
        'no longer lists.',
      requestBody: { required: true, content: json(ZoneImport) },
      responses: { '200': response('Imported.', DataEnvelope(ZoneImportResult)), '403': forbidden, '422': invalid },
    },
  },
  '/api/zones/{id}': {
    parameters: [zoneId],
    get: {
      tags: ['Geo-zones'],
      operationId: 'getZone',
      summary: 'Get a geo-zone (every key; admins also retired ones)',
      parameters: queryParameters(ZoneQuery),
      responses: { '200': response('The zone.', DataEnvelope(GeoZoneRecord)), '403': forbidden, '404': notFound },
    },
    put: {
      tags: ['Geo-zones'],
      operationId: 'replaceZone',
      summary: 'Replace a geo-zone (admin)',
      requestBody: { required: true, content: json(GeoZoneInput) },
      responses: { '200': response('The replaced zone.', DataEnvelope(GeoZoneRecord)), '403': forbidden, '404': notFound, '422': invalid },
    },
    delete: {
      tags: ['Geo-zones'],
      operationId: 'deleteZone',
      summary: 'Delete a geo-zone (admin)',
      description: 'Screening stops using it at every replica within moments.',
      responses: { '204': response('Deleted.'), '403': forbidden, '404': notFound },
    },
  },
  '/api/zones/{id}/versions': {
    parameters: [zoneId],
    get: {
      tags: ['Geo-zones'],
      operationId: 'listZoneVersions',
      summary: 'Every version of a geo-zone, oldest first (admin)',
      description: 'Each change (a replace, a newer dataset issue, a deletion or retirement) keeps the version it replaced.',
      responses: { '200': response('The versions.', DataEnvelope(Type.Array(GeoZoneRecord))), '403': forbidden, '404': notFound },
    },
  },
});
