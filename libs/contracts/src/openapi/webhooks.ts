import { DataEnvelope, LargeListQuery, PageQuery, Paginated, PaginatedOrCursor } from '../schema-helpers.js';
import {
  DeliveryRecord,
  WebhookEndpointCreate,
  WebhookEndpointRecord,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from '../webhooks/schemas.js';
import { WEBHOOK_PAYLOAD_SCHEMAS } from '../webhooks/payloads.js';

/**
 * OpenAPI 3.1 path items of the webhook routes (webhook-service). Schemas
 * are the TypeBox ones the service validates with; the delivery a subscriber
 * receives is documented as a callback of POST /api/webhooks.
 */
const TAG = 'Webhooks';
/**
 * The `webhooks` section's operations are what subscribers receive, not calls to make: a tag of
 * their own, since generators (OpenAPI Generator) write one API class per tag and would write a
 * second `WebhooksApi` over the endpoint-management one.
 */
const EVENTS_TAG = 'Webhook events';
const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

const operatorUuidQuery = {
  name: 'operator_uuid',
  in: 'query',
  required: false,
  description: 'Admin keys only: act for this operator (required to create an endpoint with an admin key). Ignored for operator keys.',
  schema: { type: 'string', format: 'uuid' },
};
const idParam = { name: 'id', in: 'path', required: true, description: 'The endpoint id.', schema: { type: 'string', format: 'uuid' } };
const deliveryIdParam = { name: 'delivery_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const pageParams = [
  { name: 'page', in: 'query', required: false, schema: PageQuery.page },
  { name: 'per_page', in: 'query', required: false, schema: PageQuery.per_page },
];

const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const common = { '403': ref('Forbidden'), '404': ref('NotFound') };

const SIGNATURE_DESCRIPTION = `Every delivery is an HTTP POST of a JSON body \`{ id, event, created_at, data }\` (one schema per
event kind: see the \`webhooks\` section of this document) with the headers \`Content-Type: application/json\`,
\`User-Agent: dfc-webhooks/1.0\`, \`X-Webhook-Event\` (the kind), and two signatures of the same body:
- Standard Webhooks (standardwebhooks.com; verify with any of its libraries and the secret as shown):
  \`webhook-id\` (the event id, the same on every retry: use it to de-duplicate), \`webhook-timestamp\` (unix seconds),
  \`webhook-signature: v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>\` where the key is the
  secret's part after \`whsec_\`, base64-decoded;
- \`X-Webhook-Id\` (the same event id) and
  \`X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>\`, the HMAC key being the whole
  secret string (\`whsec_...\`).
Each carries one signature per active secret (two for 24 h after a rotation, the new one first). Verify against the raw
body, refuse a timestamp more than 5 minutes away from now, and answer 2xx within 10 s. Anything else (including
redirects, which are not followed) is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±20 %),
honouring \`Retry-After\` on 429/503; then the delivery is failed and can be redelivered. After 5 consecutive failures
the endpoint cools off for a minute (its deliveries wait, then one attempt probes it). Answering 410 disables the
endpoint at once; so do 5 days of nothing but failures. Re-enabling it replays nothing; \`redeliver\` does.
Timestamps are ISO 8601 with a numeric offset and whole seconds (\`2026-11-23T10:00:00+00:00\`). Deliveries are not
ordered (up to 4 requests to one endpoint at once, across every replica; a retry or a wait for a busy endpoint lets later
ones pass): \`data.sequence\` increases by one per status-history entry of the flight request, so order by it; a gap is a
delivery not yet arrived (still retrying or waiting) or failed for good (the delivery log says which).
\`credentials_changed\` goes to every enabled endpoint of the operator whatever it subscribed to.`;

const deliveryHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id; the same on every retry.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: 'Standard Webhooks signatures, space-separated.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$' },
  },
  { name: 'X-Webhook-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' } },
  { name: 'X-Webhook-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
  {
    name: 'X-Webhook-Event',
    in: 'header',
    required: true,
    schema: { type: 'string', enum: Object.keys(WEBHOOK_PAYLOAD_SCHEMAS) },
  },
];

const KIND_SUMMARIES: Record<keyof typeof WEBHOOK_PAYLOAD_SCHEMAS, string> = {
  status_change: 'A flight request changed status (one per status-history entry).',
  cascade_rejection: "A review item was rejected, and the request's other pending items with it.",
  review_complete: "Every item of a flight request's review is decided.",
  amendment: 'A flight request was amended (PATCH): its new revision, what changed, and the authorisation it replaced.',
  credentials_changed:
    "The operator's login email or password changed, or one of its keys was revoked with the password: sent to every enabled endpoint, subscribed or not, so the owner hears of a takeover. Nothing secret in it.",
  restriction_notice:
    'A zone created, changed or re-issued meets a live flight request (Pending, Approved, Suspended, Activated) with a finding it did not have: the zone, its message, the finding and the affected volume.',
  ping: 'A test event sent by POST /api/webhooks/{id}/test.',
};

/** The OpenAPI 3.1 `webhooks` section: what a subscriber receives, one operation per event kind. */
export const webhookEvents: Record<string, unknown> = Object.fromEntries(
  Object.entries(WEBHOOK_PAYLOAD_SCHEMAS).map(([kind, schema]) => [
    kind,
    {
      post: {
        tags: [EVENTS_TAG],
        operationId: `${kind.replace(/_(\w)/g, (_match, letter: string) => letter.toUpperCase())}Webhook`,
        summary: KIND_SUMMARIES[kind as keyof typeof WEBHOOK_PAYLOAD_SCHEMAS],
        description: SIGNATURE_DESCRIPTION,
        parameters: deliveryHeaders,
        requestBody: body(schema),
        responses: { '2XX': { description: 'Received. Anything else is retried (410 disables the endpoint).' } },
      },
    },
  ]),
);

const deliveryCallback = {
  webhookDelivery: {
    '{$request.body#/url}': {
      post: {
        operationId: 'receiveWebhookDelivery',
        summary: 'A webhook delivery (sent by the service to your endpoint)',
        description: SIGNATURE_DESCRIPTION,
        parameters: deliveryHeaders,
        requestBody: body({ oneOf: Object.values(WEBHOOK_PAYLOAD_SCHEMAS) }),
        responses: {
          '2XX': { description: 'Received.' },
          '4XX': { description: 'Refused: retried on the schedule (410 disables the endpoint).' },
        },
      },
    },
  },
};

export const webhookPaths: Record<string, unknown> = {
  '/api/webhooks': {
    post: {
      tags: [TAG],
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      description: `Operator keys register for their own operator; admin keys name one with \`operator_uuid\`. The url must be an absolute https URL (at most 2048 characters, no credentials, not a private, loopback, link-local or cloud-metadata address). The signing secret is in this answer only.\n\n${SIGNATURE_DESCRIPTION}`,
      parameters: [operatorUuidQuery],
      requestBody: body(WebhookEndpointCreate),
      responses: {
        '201': {
          ...json(DataEnvelope(WebhookEndpointWithSecret), 'Registered; `secret` is shown only here.'),
          headers: { Location: { schema: { type: 'string' } } },
        },
        '403': ref('Forbidden'),
        '422': ref('ValidationFailed'),
      },
      callbacks: deliveryCallback,
    },
    get: {
      tags: [TAG],
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      description: "Newest first. Admin keys see every operator's endpoints unless `operator_uuid` is given.",
      parameters: [operatorUuidQuery, ...pageParams],
      responses: {
        '200': json(Paginated(WebhookEndpointRecord), 'A page of endpoints (Laravel paginator envelope).'),
        '403': ref('Forbidden'),
        '422': ref('ValidationFailed'),
      },
    },
  },
  '/api/webhooks/{id}': {
    parameters: [idParam, operatorUuidQuery],
    get: {
      tags: [TAG],
      operationId: 'getWebhook',
      summary: 'Get a webhook endpoint',
      responses: { '200': json(DataEnvelope(WebhookEndpointRecord), 'The endpoint (never its secret).'), ...common },
    },
    patch: {
      tags: [TAG],
      operationId: 'updateWebhook',
      summary: 'Update a webhook endpoint',
      description:
        'At least one of url, events, description, enabled (no body or `{}` is 422). Enabling a disabled endpoint clears `disabled_reason` and its failing streak; it replays nothing (use redeliver).',
      requestBody: body(WebhookEndpointUpdate),
      responses: { '200': json(DataEnvelope(WebhookEndpointRecord), 'The updated endpoint.'), ...common, '422': ref('ValidationFailed') },
    },
    delete: {
      tags: [TAG],
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint and its delivery log',
      responses: { '204': { description: 'Deleted.' }, ...common },
    },
  },
  '/api/webhooks/{id}/rotate-secret': {
    parameters: [idParam, operatorUuidQuery],
    post: {
      tags: [TAG],
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description: 'The new secret is shown in this answer only. The previous one keeps signing, next to the new one, for 24 hours.',
      responses: {
        '200': json(DataEnvelope(WebhookEndpointWithSecret), 'The endpoint with its new secret.'),
        ...common,
        '409': ref('Conflict'),
      },
    },
  },
  '/api/webhooks/{id}/test': {
    parameters: [idParam, operatorUuidQuery],
    post: {
      tags: [TAG],
      operationId: 'testWebhook',
      summary: 'Send a test `ping` event',
      description: 'Goes through the normal delivery path (signed, retried, logged).',
      responses: { '202': json(DataEnvelope(DeliveryRecord), 'The ping delivery, scheduled now.'), ...common, '409': ref('Conflict') },
    },
  },
  '/api/webhooks/{id}/deliveries': {
    parameters: [idParam, operatorUuidQuery],
    get: {
      tags: [TAG],
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log of an endpoint',
      description:
        'Newest first; every attempt with its time, status code, error, latency and the first 1 KiB of the answer. ' +
        '`total` counts up to 10,000; `page` goes up to 1,000, and `cursor` (`meta.next_cursor`) walks the log past that.',
      parameters: [
        { name: 'page', in: 'query', required: false, schema: LargeListQuery.page },
        { name: 'per_page', in: 'query', required: false, schema: LargeListQuery.per_page },
        { name: 'cursor', in: 'query', required: false, schema: LargeListQuery.cursor },
        { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'succeeded', 'failed'] } },
      ],
      responses: {
        '200': json(PaginatedOrCursor(DeliveryRecord), 'A page of deliveries (with `cursor`, the cursor page).'),
        ...common,
        '422': ref('ValidationFailed'),
      },
    },
  },
  '/api/webhooks/{id}/deliveries/{delivery_id}/redeliver': {
    parameters: [idParam, deliveryIdParam, operatorUuidQuery],
    post: {
      tags: [TAG],
      operationId: 'redeliverWebhookDelivery',
      summary: 'Send a delivery again',
      description:
        'A failed or succeeded delivery is scheduled again now, with a fresh round of retries (same event id). 409 when it is still pending or the endpoint is disabled.',
      responses: {
        '202': json(DataEnvelope(DeliveryRecord), 'Scheduled.'),
        ...common,
        '409': ref('Conflict'),
      },
    },
  },
};
