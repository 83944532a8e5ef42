import { Type, type Static } from '@sinclair/typebox';
import { Double, Int32, LargeListQuery, Nullable, RequiredFreeText, Timestamp, UtcTimestamp, Uuid } from '../schema-helpers.js';
import { SharedVolume } from './shared-volume.js';
import { FlightRequestStatus } from './status.js';
import { FlightVolumeRecord } from './volumes.js';

export const REVIEW_ITEM_KINDS = ['zone_authorisation', 'altitude', 'deconfliction'] as const;
export type ReviewItemKind = (typeof REVIEW_ITEM_KINDS)[number];

export const REVIEW_ITEM_STATUSES = ['pending', 'approved', 'rejected', 'cascade_rejected', 'withdrawn'] as const;
export type ReviewItemStatus = (typeof REVIEW_ITEM_STATUSES)[number];

/** One item of a request's review group, as the record and the review queue show it. */
export const ReviewItemRecord = Type.Object({
  id: Uuid,
  kind: Type.Union(REVIEW_ITEM_KINDS.map((kind) => Type.Literal(kind))),
  authority: Type.String(),
  zone_id: Nullable(Type.String()),
  finding_codes: Type.Array(Type.String()),
  message: Type.String(),
  status: Type.Union(REVIEW_ITEM_STATUSES.map((status) => Type.Literal(status))),
  reason: Nullable(Type.String()),
  decided_at: Nullable(Timestamp),
  decided_by: Nullable(Type.String({ description: 'reviewer:<authority>, admin, operator (withdrawal), system' })),
});
export type ReviewItemRecord = Static<typeof ReviewItemRecord>;

/** A review queue entry: the item and enough of its flight request to decide it. */
export const ReviewQueueEntry = Type.Object(
  {
    ...ReviewItemRecord.properties,
    flight_request: Type.Object({
      uuid: Uuid,
      operator_uuid: Uuid,
      status: FlightRequestStatus,
      start_time: UtcTimestamp,
      end_time: UtcTimestamp,
      max_altitude: Int32({ minimum: 1 }),
      aircraft_type: Type.String(),
      purpose: Type.String(),
      bbox: Type.Array(Double(), { minItems: 4, maxItems: 4, description: '[west, south, east, north]' }),
      volumes: Type.Array(Type.Object(FlightVolumeRecord.properties), { description: 'the request’s 4-D volumes, as its record shows them' }),
    }),
    competing: Type.Optional(
      Type.Array(Type.Object(SharedVolume.properties), {
        description:
          'In the queue: the volumes this request shares with other operators’ pending requests, which an approval of ' +
          'either would deny the other (time window, altitude band, area; nothing identifies them). Empty when none.',
      }),
    ),
  },
  { $id: 'ReviewQueueEntry' },
);
export type ReviewQueueEntry = Static<typeof ReviewQueueEntry>;

/** GET /api/reviews: reviewers see their own authority's pending items; admins may filter by authority. */
export const ReviewListQuery = Type.Object({
  authority: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'admins only' })),
  ...LargeListQuery,
});
export type ReviewListQuery = Static<typeof ReviewListQuery>;

/** POST /api/reviews/{id}/decision */
export const ReviewDecision = Type.Object(
  {
    decision: Type.Unsafe<'approve' | 'reject'>({
      type: 'string',
      enum: ['approve', 'reject'],
      'x-error-message': 'The decision field must be one of: approve, reject.',
    }),
    reason: RequiredFreeText({ maxLength: 1000 }),
  },
  { $id: 'ReviewDecision', additionalProperties: false },
);
export type ReviewDecision = Static<typeof ReviewDecision>;
