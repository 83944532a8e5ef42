import { ErrorBody, ValidationErrorBody } from '../schema-helpers.js';
import { forClientGenerators, withoutDefaults } from './client-compat.js';
import { authorisationPaths } from './authorisations.js';
import { flightRequestPaths } from './flight-requests.js';
import { operatorPaths } from './operators.js';
import { webhookEvents, webhookPaths } from './webhooks.js';

/**
 * The OpenAPI 3.1 document the gateway serves at `/api/openapi.json`,
 * assembled from the path items each slice writes next to its schemas. The
 * TypeBox schemas are JSON Schema already; any of them carrying an `$id` is
 * hoisted into `components.schemas` and referenced from where it was used, so
 * each schema appears once however many operations use it.
 */
export type JsonObject = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: JsonObject;
  servers: JsonObject[];
  security: Array<Record<string, string[]>>;
  paths: Record<string, JsonObject>;
  /** The requests the API sends to subscribers, one per event kind. */
  webhooks: Record<string, JsonObject>;
  components: {
    securitySchemes: Record<string, JsonObject>;
    schemas: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
  };
}

const SCHEMA_REF = '#/components/schemas/';
const RESPONSE_REF = '#/components/responses/';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const METHODS_WITH_BODY = new Set(['put', 'post', 'patch', 'delete']);

const DESCRIPTION = `Drone flight clearance: operator registry, API keys, flight requests, review and webhooks.

**Versions.** \`/api/v1/...\` and \`/api/...\` are the same routes (v1 is the current version, \`/api\` its alias);
every path below is also served under \`/api/v1\`.

**Authentication.** Send your key in \`X-API-Key\`. Registration (\`POST /api/operators\`) needs none; an operator's
keys (\`/api/operators/{uuid}/api-keys\`) are managed with HTTP Basic (the operator's email and password). Missing,
malformed, unknown or revoked keys get 401; another operator's resources 404; a wrong role 403.

**Errors.** Every error is JSON \`{ "message": ... }\` (422 adds \`errors\`, field → messages, nested fields in dot
notation) and every response carries \`X-Request-Id\`. Bodies are JSON of at most 1 MiB (zone imports 16 MiB).
Rate limits (per key, and per client IP on registration and key issuance) answer 429 with \`Retry-After\`.`;

/** Responses the gateway itself may give on any route, with their documented bodies. */
const STANDARD_RESPONSES: Record<string, JsonObject> = {
  BadRequest: errorResponse('Malformed JSON body.'),
  Unauthenticated: errorResponse('Missing, malformed, unknown or revoked API key (`{"message":"Unauthenticated."}`).'),
  KeyRefused: errorResponse(
    'An `X-API-Key` was sent and is malformed, unknown or revoked (`{"message":"Unauthenticated."}`): the route needs no key, but a key that is sent must be valid.',
  ),
  Forbidden: errorResponse("The key's role may not do this."),
  NotFound: errorResponse("No such resource (or another operator's)."),
  Conflict: errorResponse("The change is not allowed in the resource's current state."),
  PayloadTooLarge: errorResponse('The body is over the limit (1 MiB; 16 MiB for zone imports).'),
  UnsupportedMediaType: errorResponse('The body is not `application/json`.'),
  ValidationFailed: {
    description: 'Validation failed; every failing field is listed.',
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}ValidationErrorBody` } } },
  },
  TooManyRequests: {
    ...errorResponse('Too many calls (`{"message":"Too Many Attempts."}`); retry after `Retry-After` seconds.'),
    headers: {
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      'Retry-After': { description: 'Seconds until a call is allowed again.', schema: { type: 'integer', format: 'int32', minimum: 0 } },
      'X-RateLimit-Limit': { description: 'Calls allowed per minute.', schema: { type: 'integer', format: 'int32', minimum: 1 } },
      'X-RateLimit-Remaining': { description: 'Calls left in this minute.', schema: { type: 'integer', format: 'int32', minimum: 0 } },
    },
  },
  ServiceUnavailable: errorResponse('A service or dependency behind the gateway is down.'),
};

function errorResponse(description: string): JsonObject {
  return {
    description,
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}ErrorBody` } } },
  };
}

/** Where the document says the API is when no request tells (the gateway serves it with its own address). */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8080';

export function buildOpenApiDocument(now: Date = new Date()): OpenApiDocument {
  return assembleOpenApiDocument([operatorPaths, flightRequestPaths(now), webhookPaths, authorisationPaths], webhookEvents);
}

/** The document as served at `serverUrl` (scheme, host and port): generators need an absolute server URL. */
export function servedAt(document: OpenApiDocument, serverUrl: string): OpenApiDocument {
  return { ...document, servers: [{ url: serverUrl, description: 'This gateway; every path is also served under /api/v1' }] };
}

/** Assembles the document from slices of path items (exported for tests). */
export function assembleOpenApiDocument(slices: ReadonlyArray<Record<string, unknown>>, webhooks: Record<string, unknown> = {}): OpenApiDocument {
  const schemas: Record<string, JsonObject> = {};
  const hoist = schemaHoister(schemas);
  hoist(ErrorBody);
  hoist(ValidationErrorBody);
  const paths: Record<string, JsonObject> = {};
  for (const slice of slices) {
    for (const [path, item] of Object.entries(slice)) {
      paths[path] = documentGatewayBehaviour(path, hoist(forClientGenerators(withoutRequestDefaults(item as JsonObject))) as JsonObject);
    }
  }
  // The requests this API sends (OpenAPI 3.1 `webhooks`), hoisted with the same schema components.
  const hoistedWebhooks = hoist(forClientGenerators(webhooks));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Drone flight clearance API',
      version: '1.0.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: DESCRIPTION,
    },
    servers: [{ url: DEFAULT_SERVER_URL, description: 'Local development; the gateway serves this document with its own address' }],
    security: [{ ApiKeyAuth: [] }],
    paths: resolveBareRefs(sortedByPath(paths), schemas) as Record<string, JsonObject>,
    webhooks: resolveBareRefs(hoistedWebhooks, schemas) as Record<string, JsonObject>,
    components: {
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BasicAuth: { type: 'http', scheme: 'basic', description: 'Operator email and password (key issuance).' },
      },
      schemas: resolveBareRefs(schemas, schemas) as Record<string, JsonObject>,
      responses: STANDARD_RESPONSES,
      headers: {
        'X-Request-Id': { description: 'The request id, also in every log line of every service.', schema: { type: 'string' } },
      },
    },
  };
}

/** Request bodies only: parameters keep their defaults (`page`, `per_page`). */
function withoutRequestDefaults(item: JsonObject): JsonObject {
  const copy: JsonObject = { ...item };
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (typeof operation !== 'object' || operation === null || !('requestBody' in operation)) continue;
    copy[method] = { ...operation, requestBody: withoutDefaults((operation as JsonObject)['requestBody']) };
  }
  return copy;
}

/** Code-point order: the same document whatever the process's locale, and no ICU collator loaded for it (about 3 MiB). */
function sortedByPath(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  return Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Returns a plain JSON copy of a value (TypeBox's symbol keys dropped) in which
 * every schema with an `$id` is moved to `schemas` and replaced by a `$ref`.
 * Two different schemas claiming one `$id` stay inline: the first keeps the name.
 */
function schemaHoister(schemas: Record<string, JsonObject>): (value: unknown) => unknown {
  const hoist = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(hoist);
    if (typeof value !== 'object' || value === null) return value;
    const copy: JsonObject = {};
    for (const [key, child] of Object.entries(value)) if (key !== '$id') copy[key] = hoist(child);
    const id = (value as JsonObject)['$id'];
    if (typeof id !== 'string') return copy;
    const known = schemas[id];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(copy)) return copy;
    schemas[id] = copy;
    return { $ref: `${SCHEMA_REF}${id}` };
  };
  return hoist;
}

/** TypeBox's `Type.Ref(Schema)` writes `{ $ref: "<$id>" }`; in the document that is a component. */
function resolveBareRefs(value: unknown, schemas: Record<string, JsonObject>): unknown {
  if (Array.isArray(value)) return value.map((child) => resolveBareRefs(child, schemas));
  if (typeof value !== 'object' || value === null) return value;
  const copy: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] =
      key === '$ref' && typeof child === 'string' && Object.hasOwn(schemas, child) ? `${SCHEMA_REF}${child}` : resolveBareRefs(child, schemas);
  }
  return copy;
}

/**
 * What the gateway adds to every route, written into each operation unless the
 * slice documented it already: the security of public routes, the `/api/v1`
 * alias, and the statuses the gateway itself answers (401, 429, 503, and the
 * body rules 400/413/415 where a body is sent).
 */
function documentGatewayBehaviour(path: string, item: JsonObject): JsonObject {
  const alias = path.startsWith('/api/') && !path.startsWith('/api/v1/') ? `/api/v1${path.slice(4)}` : undefined;
  const documented: JsonObject = { ...item };
  if (alias !== undefined) {
    const note = `Also served as \`${alias}\`.`;
    documented['description'] = typeof item['description'] === 'string' ? `${item['description']}\n\n${note}` : note;
  }
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (typeof operation !== 'object' || operation === null) continue;
    documented[method] = documentOperation(path, method, operation as JsonObject, item['parameters']);
  }
  return documented;
}

function documentOperation(path: string, method: string, operation: JsonObject, pathParameters: unknown): JsonObject {
  const publicSecurity = securityOfPublicRoute(path, method);
  const responses: JsonObject = { ...((operation['responses'] as JsonObject | undefined) ?? {}) };
  const add = (status: string, name: string) => {
    if (!(status in responses)) responses[status] = { $ref: `${RESPONSE_REF}${name}` };
  };
  const explicitlyPublic = Array.isArray(operation['security']) && operation['security'].length === 0;
  add('401', publicSecurity === undefined && !explicitlyPublic ? 'Unauthenticated' : 'KeyRefused');
  if (METHODS_WITH_BODY.has(method) && operation['requestBody'] !== undefined) {
    add('400', 'BadRequest');
    add('413', 'PayloadTooLarge');
    add('415', 'UnsupportedMediaType');
  }
  if (operation['requestBody'] !== undefined || takesQuery(operation['parameters']) || takesQuery(pathParameters)) {
    add('422', 'ValidationFailed');
  }
  add('429', 'TooManyRequests');
  add('503', 'ServiceUnavailable');
  const documented: JsonObject = { ...operation, responses };
  if (publicSecurity !== undefined && operation['security'] === undefined) documented['security'] = publicSecurity;
  return documented;
}

/** Query parameters are validated like bodies: a bad or unknown one is a 422. */
function takesQuery(parameters: unknown): boolean {
  return Array.isArray(parameters) && parameters.some((parameter) => (parameter as JsonObject)['in'] === 'query');
}

/** Public routes (docs/architecture.md): registration needs nothing, an operator's keys need Basic. */
function securityOfPublicRoute(path: string, method: string): Array<Record<string, string[]>> | undefined {
  const canonical = path.replace(/^\/api\/v1\//, '/api/');
  if (canonical === '/api/operators' && method === 'post') return [];
  if (/^\/api\/operators\/\{[^}]+\}\/api-keys(?:\/\{[^}]+\})?$/.test(canonical)) return [{ BasicAuth: [] }];
  return undefined;
}
