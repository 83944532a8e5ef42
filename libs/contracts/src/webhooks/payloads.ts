import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { Int32, Nullable, Timestamp, UtcTimestamp, Uuid } from '../schema-helpers.js';
import { FlightRequestStatus } from '../flight-requests/status.js';
import { AMENDABLE_FIELDS } from '../flight-requests/requests.js';
import { CREDENTIAL_CHANGES } from '../events/operator-events.js';

/**
 * What a subscriber receives: one schema per event kind, every object closed
 * (`additionalProperties: false`), so a field added to an internal event
 * never reaches subscribers unless it is added here and mapped on purpose
 * (webhook-service `domain/public-payload.ts`).
 */
const closed = { additionalProperties: false } as const;

const Sequence = Type.Union([Int32({ minimum: 1 }), Type.Null()], {
  description:
    'The 1-based position of the status-history entry this event belongs to. It increases by one per status-history entry of the flight request. Deliveries are not ordered: a higher sequence may arrive first, and a gap is a delivery not yet arrived (still retrying, or waiting for a busy endpoint) or one that failed for good (see the delivery log; fetch the request to catch up). On status_change it is the entry the change added; on cascade_rejection and review_complete it is the entry of the status change they caused, or null when the flight-request-service did not name one.',
});

/** Fields every flight-request payload carries. */
const aboutFlightRequest = {
  uuid: Type.String({ format: 'uuid', description: 'The flight request (same as flight_request_uuid).' }),
  flight_request_uuid: Uuid,
  operator_uuid: Uuid,
  sequence: Sequence,
};

const PublicReviewItem = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'zone_authorisation | altitude | deconfliction' }),
    authority: Type.String(),
    zone_id: Nullable(Type.String()),
    status: Type.String({ enum: ['pending', 'approved', 'rejected', 'cascade_rejected', 'withdrawn'] }),
    reason: Nullable(Type.String()),
    decided_at: Type.Union([Timestamp, Type.Null()]),
  },
  closed,
);
export type PublicReviewItem = Static<typeof PublicReviewItem>;

export const StatusChangeData = Type.Object(
  {
    ...aboutFlightRequest,
    previous_status: Type.Union([FlightRequestStatus, Type.Null()]),
    status: FlightRequestStatus,
    reason: Nullable(Type.String()),
    actor: Type.String({ description: 'operator, reviewer:<authority>, screening, system' }),
    changed_at: Timestamp,
  },
  closed,
);
export type StatusChangeData = Static<typeof StatusChangeData>;

export const CascadeRejectionData = Type.Object(
  {
    ...aboutFlightRequest,
    rejected_item: PublicReviewItem,
    cascaded_items: Type.Array(PublicReviewItem),
    reason: Type.String(),
    occurred_at: Timestamp,
  },
  closed,
);
export type CascadeRejectionData = Static<typeof CascadeRejectionData>;

export const ReviewCompleteData = Type.Object(
  {
    ...aboutFlightRequest,
    outcome: FlightRequestStatus,
    items: Type.Array(PublicReviewItem),
    counts: Type.Object(
      {
        total: Int32({ minimum: 0 }),
        approved: Int32({ minimum: 0 }),
        rejected: Int32({ minimum: 0 }),
        cascade_rejected: Int32({ minimum: 0 }),
        withdrawn: Int32({ minimum: 0 }),
      },
      closed,
    ),
    completed_at: Timestamp,
  },
  closed,
);
export type ReviewCompleteData = Static<typeof ReviewCompleteData>;

export const AmendmentData = Type.Object(
  {
    ...aboutFlightRequest,
    revision: Int32({ minimum: 2, description: '1 as submitted, one more per amendment: the revision this amendment made.' }),
    previous_status: FlightRequestStatus,
    status: FlightRequestStatus,
    changed: Type.Array(Type.String({ enum: [...AMENDABLE_FIELDS] }), {
      description: 'The fields whose value the amendment changed.',
    }),
    approvals_kept: Int32({ minimum: 0, description: 'Review approvals that still hold for the amended flight.' }),
    revoked_authorisation: Type.Union([Type.String(), Type.Null()], {
      description: 'The jti of the authorisation the amendment replaced (reported revoked from now on), or null.',
    }),
    start_time: UtcTimestamp,
    end_time: UtcTimestamp,
    max_altitude: Int32({ minimum: 1 }),
    amended_at: Timestamp,
  },
  closed,
);
export type AmendmentData = Static<typeof AmendmentData>;
export const CredentialsChangedData = Type.Object(
  {
    operator_uuid: Uuid,
    changes: Type.Array(Type.String({ enum: [...CREDENTIAL_CHANGES] }), {
      minItems: 1,
      description: 'What changed: email (the login email), password, api_key_revoked (a key revoked with the password, not by itself).',
    }),
    key_id: Type.Union([Type.String({ pattern: '^[0-9a-f]{16}$' }), Type.Null()], {
      description: 'The public id of the key revoked (the 16 hex characters after `dfc_`), for api_key_revoked; else null.',
    }),
    changed_at: Timestamp,
  },
  closed,
);
export type CredentialsChangedData = Static<typeof CredentialsChangedData>;
export const RestrictionNoticeData = Type.Object(
  {
    ...aboutFlightRequest,
    status: FlightRequestStatus,
    zone: Type.Object(
      {
        id: Type.String(),
        version: Int32({ minimum: 0, description: 'The zone version screened: one notice per zone version and request.' }),
        identifier: Nullable(Type.String({ description: 'The published ED-269 / ED-318 identifier.' })),
        country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-3.' })),
        type: Type.String({ description: 'CTR, AIRPORT, MILITARY, NATURE, TEMPORARY or OTHER.' }),
        published_type: Nullable(
          Type.String({ description: 'The type as published (ED-318 `type`, ED-269 `restriction`), e.g. REQ_AUTHORIZATION.' }),
        ),
        restriction: Type.String({ enum: ['PROHIBITED', 'REQ_AUTHORISATION', 'CONDITIONAL', 'USPACE', 'NO_RESTRICTION'] }),
        name: Type.String(),
        authority: Type.String(),
      },
      closed,
    ),
    message: Nullable(Type.String({ description: "The zone's published message, in the first language published; null when it has none." })),
    messages: Type.Array(Type.Object({ text: Type.String(), lang: Type.String() }, closed), {
      description: 'The published message in every language published.',
    }),
    finding: Type.Object(
      {
        code: Type.String({
          description: 'ZONE_PROHIBITED | ZONE_REQUIRES_AUTHORISATION | CTR_EXEMPTION_APPLIED | ZONE_CONDITIONAL | ZONE_USPACE | ZONE_INFORMATION',
        }),
        message: Type.String(),
        authority: Nullable(Type.String()),
      },
      closed,
    ),
    volume: Int32({ minimum: 0, description: 'The index of the affected volume (a request without volumes is volume 0).' }),
    effect: Type.String({
      enum: ['notice', 'review_added', 'suspended', 'reinstated', 'rescinded', 'rejected'],
      description:
        'What the zone did to the request: nothing but this notice; a review item added (Pending); the approval suspended until the authority decides (Suspended); reinstated (a suspending zone changed so that it no longer needs authorisation); Rescinded; Rejected. A status change also arrives as status_change.',
    }),
    occurred_at: Timestamp,
  },
  closed,
);
export type RestrictionNoticeData = Static<typeof RestrictionNoticeData>;

export const PingData = Type.Object(
  {
    webhook_id: Uuid,
    message: Type.String(),
  },
  closed,
);
export type PingData = Static<typeof PingData>;

/** `{ id, event, created_at, data }`: `id` is the event id (also `webhook-id`), `created_at` when the event happened. */
function payload<K extends string, D extends TProperties>(kind: K, data: ReturnType<typeof Type.Object<D>>, id: string) {
  return Type.Object(
    {
      id: Uuid,
      event: Type.Literal(kind),
      created_at: Timestamp,
      data,
    },
    { ...closed, $id: id },
  );
}

export const StatusChangePayload = payload('status_change', StatusChangeData, 'StatusChangeWebhook');
export type StatusChangePayload = Static<typeof StatusChangePayload>;
export const CascadeRejectionPayload = payload('cascade_rejection', CascadeRejectionData, 'CascadeRejectionWebhook');
export type CascadeRejectionPayload = Static<typeof CascadeRejectionPayload>;
export const ReviewCompletePayload = payload('review_complete', ReviewCompleteData, 'ReviewCompleteWebhook');
export type ReviewCompletePayload = Static<typeof ReviewCompletePayload>;
export const AmendmentPayload = payload('amendment', AmendmentData, 'AmendmentWebhook');
export type AmendmentPayload = Static<typeof AmendmentPayload>;
export const CredentialsChangedPayload = payload('credentials_changed', CredentialsChangedData, 'CredentialsChangedWebhook');
export type CredentialsChangedPayload = Static<typeof CredentialsChangedPayload>;
export const RestrictionNoticePayload = payload('restriction_notice', RestrictionNoticeData, 'RestrictionNoticeWebhook');
export type RestrictionNoticePayload = Static<typeof RestrictionNoticePayload>;
export const PingPayload = payload('ping', PingData, 'PingWebhook');
export type PingPayload = Static<typeof PingPayload>;

/** Any body POSTed to a subscriber. */
export type WebhookPayload =
  | StatusChangePayload
  | CascadeRejectionPayload
  | ReviewCompletePayload
  | RestrictionNoticePayload
  | AmendmentPayload
  | CredentialsChangedPayload
  | PingPayload;

/** The schema of each kind's body, for validators and the OpenAPI `webhooks` section. */
export const WEBHOOK_PAYLOAD_SCHEMAS = {
  status_change: StatusChangePayload,
  cascade_rejection: CascadeRejectionPayload,
  review_complete: ReviewCompletePayload,
  amendment: AmendmentPayload,
  credentials_changed: CredentialsChangedPayload,
  restriction_notice: RestrictionNoticePayload,
  ping: PingPayload,
} as const;
