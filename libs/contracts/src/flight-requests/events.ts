import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Uuid } from '../schema-helpers.js';
import { FlightRequestStatus } from './status.js';

/** flight_request.submitted */
export const FlightRequestSubmitted = Type.Object({
  flight_request_uuid: Uuid,
  operator_uuid: Uuid,
  status: FlightRequestStatus,
  start_time: Type.String(),
  end_time: Type.String(),
});
export type FlightRequestSubmitted = Static<typeof FlightRequestSubmitted>;

/**
 * flight_request.status_changed: one per entry of `status_history`, including
 * the first (previous_status null). Webhook kind `status_change`.
 */
export const FlightRequestStatusChanged = Type.Object({
  flight_request_uuid: Uuid,
  operator_uuid: Uuid,
  previous_status: Type.Union([FlightRequestStatus, Type.Null()]),
  status: FlightRequestStatus,
  reason: Nullable(Type.String()),
  actor: Type.String({ description: 'operator, reviewer:<authority>, screening, system' }),
  changed_at: Type.String({ format: 'date-time' }),
  sequence: Type.Integer({ minimum: 1, description: 'The 1-based position of this entry in status_history (the first, Pending, is 1)' }),
});
export type FlightRequestStatusChanged = Static<typeof FlightRequestStatusChanged>;

export const ReviewItemSummary = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'zone_authorisation | altitude | deconfliction' }),
  authority: Type.String(),
  zone_id: Nullable(Type.String()),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('cascade_rejected'),
    Type.Literal('withdrawn'),
  ]),
  reason: Nullable(Type.String()),
  decided_at: Nullable(Type.String({ format: 'date-time' })),
});
export type ReviewItemSummary = Static<typeof ReviewItemSummary>;

/**
 * flight_request.cascade_rejection: one item was rejected, so the request's
 * other pending items were rejected with it. Webhook kind `cascade_rejection`.
 */
export const FlightRequestCascadeRejection = Type.Object({
  flight_request_uuid: Uuid,
  operator_uuid: Uuid,
  rejected_item: ReviewItemSummary,
  cascaded_items: Type.Array(ReviewItemSummary),
  reason: Type.String(),
  occurred_at: Type.String({ format: 'date-time' }),
});
export type FlightRequestCascadeRejection = Static<typeof FlightRequestCascadeRejection>;

/**
 * flight_request.review_completed: every item of the request's review group is
 * decided. Webhook kind `review_complete` ("summary for a group").
 */
export const FlightRequestReviewCompleted = Type.Object({
  flight_request_uuid: Uuid,
  operator_uuid: Uuid,
  outcome: FlightRequestStatus,
  items: Type.Array(ReviewItemSummary),
  counts: Type.Object({
    total: Type.Integer(),
    approved: Type.Integer(),
    rejected: Type.Integer(),
    cascade_rejected: Type.Integer(),
    withdrawn: Type.Integer(),
  }),
  completed_at: Type.String({ format: 'date-time' }),
});
export type FlightRequestReviewCompleted = Static<typeof FlightRequestReviewCompleted>;

/** What a restriction notice did to the request besides telling its operator. */
export const RESTRICTION_NOTICE_EFFECTS = ['notice', 'review_added', 'suspended', 'reinstated', 'rescinded', 'rejected'] as const;
export type RestrictionNoticeEffect = (typeof RESTRICTION_NOTICE_EFFECTS)[number];

/** The zone a restriction notice is about, as it was at the version that was screened. */
export const RestrictionNoticeZone = Type.Object({
  id: Type.String(),
  version: Type.Integer({ minimum: 0 }),
  identifier: Nullable(Type.String({ description: 'the published ED-269 / ED-318 identifier' })),
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-3' })),
  type: Type.String({ description: 'CTR, AIRPORT, MILITARY, NATURE, TEMPORARY or OTHER' }),
  published_type: Nullable(Type.String({ description: 'the type as published (ED-318 `type`, ED-269 `restriction`), e.g. REQ_AUTHORIZATION' })),
  restriction: Type.String({ description: 'PROHIBITED | REQ_AUTHORISATION | CONDITIONAL | USPACE | NO_RESTRICTION' }),
  name: Type.String(),
  authority: Type.String(),
});
export type RestrictionNoticeZone = Static<typeof RestrictionNoticeZone>;

/**
 * flight_request.restriction_notice: a zone created, changed or re-issued meets a live request with a finding the
 * request did not have. Webhook kind `restriction_notice`.
 */
export const FlightRequestRestrictionNotice = Type.Object({
  flight_request_uuid: Uuid,
  operator_uuid: Uuid,
  status: FlightRequestStatus,
  zone: RestrictionNoticeZone,
  message: Nullable(Type.String({ description: "the zone's published message (the first language published)" })),
  messages: Type.Array(Type.Object({ text: Type.String(), lang: Type.String() })),
  finding: Type.Object({ code: Type.String(), message: Type.String(), authority: Nullable(Type.String()) }),
  volume: Type.Integer({ minimum: 0 }),
  effect: Type.Union(RESTRICTION_NOTICE_EFFECTS.map((effect) => Type.Literal(effect))),
  sequence: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  occurred_at: Type.String({ format: 'date-time' }),
});
export type FlightRequestRestrictionNotice = Static<typeof FlightRequestRestrictionNotice>;
