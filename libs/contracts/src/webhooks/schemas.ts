import { Type, type Static } from '@sinclair/typebox';
import { FreeText, Int32, Nullable, PageQuery, Timestamp, Uuid } from '../schema-helpers.js';
import { WEBHOOK_CREDENTIALS_KIND, WEBHOOK_EVENT_KINDS, WEBHOOK_PING_KIND, type SubscribableWebhookKind } from './kinds.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
/** How much of a receiver's answer the delivery log keeps. */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024;

/** An enum rather than a union of literals: one clear message per bad entry, naming the allowed values. */
const SubscribableKind = Type.Unsafe<SubscribableWebhookKind>({
  type: 'string',
  enum: [...WEBHOOK_EVENT_KINDS],
  'x-error-message': `The selected event is invalid (allowed: ${WEBHOOK_EVENT_KINDS.join(', ')}).`,
});

const WebhookUrl = Type.String({
  minLength: 1,
  format: 'uri',
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description: 'Absolute https URL (http only where the deployment allows it); no credentials; no private addresses.',
});

const WebhookEvents = Type.Array(SubscribableKind, { minItems: 1, maxItems: WEBHOOK_EVENT_KINDS.length, uniqueItems: true });

const WebhookDescription = Nullable(FreeText({ maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH }));

/** POST /api/webhooks */
export const WebhookEndpointCreate = Type.Object(
  {
    url: WebhookUrl,
    events: WebhookEvents,
    description: Type.Optional(WebhookDescription),
  },
  { $id: 'WebhookEndpointCreate', additionalProperties: false },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreate>;

/** PATCH /api/webhooks/{id}: any non-empty subset (no body or `{}` is 422). Enabling again clears `disabled_reason`. */
export const WebhookEndpointUpdate = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(WebhookEvents),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(WebhookDescription),
  },
  { $id: 'WebhookEndpointUpdate', additionalProperties: false, minProperties: 1 },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdate>;

/** `operator_uuid` lets an admin act for an operator; operators never need it. */
export const WebhookScopeQuery = Type.Object({ operator_uuid: Type.Optional(Uuid) });
export type WebhookScopeQuery = Static<typeof WebhookScopeQuery>;

export const WebhookListQuery = Type.Object({ ...PageQuery, operator_uuid: Type.Optional(Uuid) });
export type WebhookListQuery = Static<typeof WebhookListQuery>;

export const DeliveryListQuery = Type.Object({
  ...PageQuery,
  operator_uuid: Type.Optional(Uuid),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

/** The endpoint record. The secret is never part of it (see WebhookEndpointWithSecret). */
export const WebhookEndpointRecord = Type.Object(
  {
    id: Uuid,
    operator_uuid: Uuid,
    url: Type.String(),
    events: Type.Array(SubscribableKind),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    disabled_reason: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookEndpointRecord' },
);
export type WebhookEndpointRecord = Static<typeof WebhookEndpointRecord>;

/** Returned once, at creation and at rotation. */
export const WebhookEndpointWithSecret = Type.Intersect(
  [WebhookEndpointRecord, Type.Object({ secret: Type.String({ pattern: '^whsec_[A-Za-z0-9+/]{43}=$' }) })],
  { $id: 'WebhookEndpointWithSecret' },
);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);
export type DeliveryStatus = Static<typeof DeliveryStatus>;

/** One HTTP attempt; `status_code` is null when no answer came (refused, timed out, blocked). */
export const DeliveryAttempt = Type.Object({
  at: Timestamp,
  status_code: Type.Union([Int32({ minimum: 100, maximum: 999 }), Type.Null()]),
  error: Nullable(Type.String()),
  latency_ms: Int32({ minimum: 0 }),
  response_body: Nullable(Type.String({ description: `First ${WEBHOOK_RESPONSE_EXCERPT_BYTES} bytes of the answer` })),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

export const DeliveryRecord = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Uuid,
    event: Type.Union([SubscribableKind, Type.Literal(WEBHOOK_CREDENTIALS_KIND), Type.Literal(WEBHOOK_PING_KIND)]),
    status: DeliveryStatus,
    attempt_count: Int32({ minimum: 0 }),
    attempts: Type.Array(DeliveryAttempt),
    next_attempt_at: Type.Union([Timestamp, Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'DeliveryRecord' },
);
export type DeliveryRecord = Static<typeof DeliveryRecord>;
