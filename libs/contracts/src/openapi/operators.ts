import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import {
  ApiKeyListQuery,
  IssuedApiKey,
  ApiKeyMetadata,
  OperatorApiKeyCreate,
  OperatorApiKeyListQuery,
  StaffApiKeyCreate,
} from '../operators/api-keys.js';
import { OperatorCreate, OperatorRecord, OperatorUpdate } from '../operators/schemas.js';
import { DataEnvelope, ErrorBody, Paginated, Uuid, ValidationErrorBody } from '../schema-helpers.js';
import { issueOperatorApiKeyExample, registerOperatorExample } from './examples.js';

/**
 * OpenAPI 3.1 path items of the operator-service (operators and API keys).
 * Schemas are the TypeBox ones the service validates with; the assembler
 * hoists those carrying an `$id` into `components.schemas`.
 */
type PathItem = Record<string, unknown>;

const json = (schema: TSchema, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });

function response(description: string, schema?: TSchema, headers?: Record<string, unknown>): PathItem {
  return { description, ...(headers ? { headers } : {}), ...(schema ? { content: json(schema) } : {}) };
}

const unauthenticated = response('No key, or a malformed, unknown or revoked one: `{"message":"Unauthenticated."}`.', ErrorBody);
const basicRefused = response('Missing or wrong email/password (HTTP Basic).', ErrorBody, {
  'WWW-Authenticate': { description: '`Basic realm="dfc"`', schema: { type: 'string' } },
});
const forbidden = response("The key's role may not do this.", ErrorBody);
const notFound = response('No such operator or key, or one that is not yours: `{"message":"Not Found."}`.', ErrorBody);
const invalid = response('Validation failed; every failing field is listed at once.', ValidationErrorBody);
const created = (schema: TSchema, location?: boolean) =>
  response(
    'Created.',
    DataEnvelope(schema),
    location ? { Location: { description: 'URL of the new resource.', schema: { type: 'string' } } } : undefined,
  );

const uuidParameter = { name: 'uuid', in: 'path', required: true, description: "The operator's uuid.", schema: Uuid };
const keyIdParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The key's id (the 16 hex characters after `dfc_`).",
  schema: Type.String({ pattern: '^[0-9a-f]{16}$' }),
};

function queryParameters(schema: TObject): PathItem[] {
  return Object.entries(schema.properties).map(([name, property]) => ({ name, in: 'query', required: false, schema: property }));
}

const basicOrKey = [{ BasicAuth: [] }, { ApiKeyAuth: [] }];

export const operatorPaths: Record<string, PathItem> = {
  '/api/operators': {
    post: {
      tags: ['Operators'],
      operationId: 'registerOperator',
      summary: 'Register an operator',
      description:
        'Public (no key). The email is trimmed and must be unique case-insensitively; the password (8..256 characters) ' +
        'is stored as an argon2id hash and never returned. `ctr_exemption_number` is required when ' +
        '`exemption_for_ctr` is true; `timezone` is an IANA name (`Area/City`) or `UTC`.',
      security: [],
      requestBody: { required: true, content: json(OperatorCreate, registerOperatorExample) },
      responses: { '201': created(OperatorRecord, true), '422': invalid },
    },
  },
  '/api/operators/{uuid}': {
    parameters: [uuidParameter],
    get: {
      tags: ['Operators'],
      operationId: 'getOperator',
      summary: 'Get an operator',
      description: "With the operator's own key, or a reviewer or admin key. Another operator's uuid is 404.",
      responses: { '200': response('The operator.', DataEnvelope(OperatorRecord)), '401': unauthenticated, '403': forbidden, '404': notFound },
    },
    patch: {
      tags: ['Operators'],
      operationId: 'updateOperator',
      summary: "Change an operator's contact fields or password",
      description:
        "With the operator's own key or an admin key; the registration rules apply, the CTR rule to the record as it " +
        'would be after the change. Fields not sent stay as they are; a change emits `operator.updated`. ' +
        'A new `password` (8..256 characters) needs `current_password` (a wrong one is 422 on `current_password`), ' +
        'keeps every API key issued before valid and emits `operator.password_changed`. An operator changes its login ' +
        '`email` or its `password` only with its email and password in HTTP Basic (`Authorization`) beside its key: ' +
        'without them 403, wrong ones 401; the change emits `operator.credentials_changed`, a notice to the email the ' +
        'account had. Read-only fields (`uuid`, ' +
        '`created_at`, `updated_at`) and unknown fields are refused with 422 naming each of them.',
      requestBody: { required: true, content: json(OperatorUpdate) },
      responses: {
        '200': response('The changed operator.', DataEnvelope(OperatorRecord)),
        '401': unauthenticated,
        '403': forbidden,
        '404': notFound,
        '409': response('Changed by another request at the same moment; retry.', ErrorBody),
        '422': invalid,
      },
    },
  },
  '/api/operators/{uuid}/api-keys': {
    parameters: [uuidParameter],
    post: {
      tags: ['API keys'],
      operationId: 'issueOperatorApiKey',
      summary: 'Issue an API key to the operator',
      description: "HTTP Basic with the operator's email and password. The key is in the answer once, and never again.",
      security: [{ BasicAuth: [] }],
      requestBody: { required: false, content: json(OperatorApiKeyCreate, issueOperatorApiKeyExample) },
      responses: { '201': created(IssuedApiKey), '401': basicRefused, '404': notFound, '422': invalid },
    },
    get: {
      tags: ['API keys'],
      operationId: 'listOperatorApiKeys',
      summary: "List the operator's API keys (metadata only)",
      description: "HTTP Basic (email and password), the operator's own key, or an admin key. Newest first.",
      security: basicOrKey,
      parameters: queryParameters(OperatorApiKeyListQuery),
      responses: {
        '200': response('A page of key metadata.', Paginated(ApiKeyMetadata)),
        '401': basicRefused,
        '403': forbidden,
        '404': notFound,
        '422': invalid,
      },
    },
  },
  '/api/operators/{uuid}/api-keys/{id}': {
    parameters: [uuidParameter, keyIdParameter],
    delete: {
      tags: ['API keys'],
      operationId: 'revokeOperatorApiKey',
      summary: "Revoke one of the operator's API keys",
      description:
        "HTTP Basic, an admin key, or the key itself (a key revokes only itself: another of the operator's keys " +
        'needs HTTP Basic, else 403; revoked so, the operator gets an `operator.credentials_changed` notice). The key ' +
        'stops working at every gateway within seconds. ' +
        'Revoking a revoked key changes nothing (204).',
      security: basicOrKey,
      responses: { '204': response('Revoked.'), '401': basicRefused, '403': forbidden, '404': notFound },
    },
  },
  '/api/api-keys': {
    post: {
      tags: ['API keys'],
      operationId: 'issueStaffApiKey',
      summary: 'Issue a reviewer or admin key (admins)',
      description: 'A reviewer key is bound to one `authority` (required); an admin key takes none.',
      requestBody: { required: true, content: json(StaffApiKeyCreate) },
      responses: { '201': created(IssuedApiKey), '401': unauthenticated, '403': forbidden, '422': invalid },
    },
    get: {
      tags: ['API keys'],
      operationId: 'listApiKeys',
      summary: 'List every API key (admins; metadata only)',
      parameters: queryParameters(ApiKeyListQuery),
      responses: {
        '200': response('A page of key metadata, newest first.', Paginated(ApiKeyMetadata)),
        '401': unauthenticated,
        '403': forbidden,
        '422': invalid,
      },
    },
  },
  '/api/api-keys/{id}': {
    parameters: [keyIdParameter],
    delete: {
      tags: ['API keys'],
      operationId: 'revokeApiKey',
      summary: 'Revoke any API key (admins)',
      responses: { '204': response('Revoked.'), '401': unauthenticated, '403': forbidden, '404': notFound },
    },
  },
};
