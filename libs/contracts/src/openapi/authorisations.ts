import type { TSchema } from '@sinclair/typebox';
import {
  AUTHORISATION_TOKEN_TYPE,
  AuthorisationJwks,
  AuthorisationRecord,
  AuthorisationStatusRecord,
  FlightRequestPreview,
} from '../flight-requests/authorisation.js';
import { FlightRequestCreateDocument } from '../flight-requests/requests.js';
import { DataEnvelope, ErrorBody, Uuid, ValidationErrorBody } from '../schema-helpers.js';

/**
 * OpenAPI 3.1 path items of signed authorisations (the token of an Approved
 * request, its public status, the public keys) and of the submission preview.
 */
type PathItem = Record<string, unknown>;

const json = (schema: TSchema, type = 'application/json') => ({ [type]: { schema } });
const response = (description: string, schema?: TSchema, type?: string): PathItem => ({
  description,
  ...(schema ? { content: json(schema, type) } : {}),
});

const notFound = response('No such resource, or one that is not yours: `{"message":"Not Found."}`.', ErrorBody);
const invalid = response('Validation failed; every failing field is listed at once (nested fields in dot notation).', ValidationErrorBody);
/** Outside verifiers have no key: these routes are public and limited per client IP. */
const PUBLIC = { security: [] };

const submitBody = FlightRequestCreateDocument;

const TOKEN_DESCRIPTION =
  `A compact JWS (header \`alg: EdDSA\`, \`typ: ${AUTHORISATION_TOKEN_TYPE}\`, \`kid\`), verifiable offline with ` +
  'the keys of `/.well-known/jwks.json`. Claims: `sub`/`flight_request_uuid`, `operator_uuid`, ' +
  '`operator_registration_number`, `start_time`, `end_time`, `max_altitude`, `flight_area_sha256` (hex SHA-256 of ' +
  'the `flight_area` in RFC 8785 canonical JSON) and `flight_area_bbox`, `decision` and `decided_by`, `iat` (the ' +
  'approval), `exp` (the end of the window), `jti`. The token is derived from the approval, so every call returns ' +
  'the same token (a new signature only after a key rotation). Whether it still stands (the request may since be ' +
  'cancelled or rescinded) is answered by `GET /api/v1/authorisations/{jti}`.';

export const authorisationPaths: Record<string, PathItem> = {
  '/api/flight-requests/preview': {
    post: {
      tags: ['Flight requests'],
      operationId: 'previewFlightRequest',
      summary: 'Preview the screening of a submission (nothing is stored)',
      description:
        'Takes the same body as `POST /api/flight-requests` and answers with the same checks (422, 403, unknown ' +
        'operator) and the screening outcome it would get now: `status`, `findings` and the `review_items` that would ' +
        'be opened. Nothing is stored and no event or webhook is sent; `Idempotency-Key` is ignored.',
      requestBody: { required: true, content: json(submitBody) },
      responses: {
        '200': response('What a submission would get now.', DataEnvelope(FlightRequestPreview)),
        '403': response('An operator key naming another operator, or a reviewer key.', ErrorBody),
        '422': invalid,
      },
    },
  },
  '/api/flight-requests/{uuid}/authorisation': {
    parameters: [{ name: 'uuid', in: 'path', required: true, description: "The flight request's uuid.", schema: Uuid }],
    get: {
      tags: ['Authorisations'],
      operationId: 'getFlightAuthorisation',
      summary: 'The signed authorisation of an Approved flight request',
      description: `${TOKEN_DESCRIPTION} Whoever may read the request may read its authorisation.`,
      responses: {
        '200': response('The token, its id and key, and its claims decoded.', DataEnvelope(AuthorisationRecord)),
        '404': response('No such request, not yours, or not Approved (pending, suspended, rejected, cancelled, rescinded, expired).', ErrorBody),
      },
    },
  },
  '/api/authorisations/{jti}': {
    parameters: [{ name: 'jti', in: 'path', required: true, description: 'The `jti` claim of the token.', schema: { type: 'string' } }],
    get: {
      ...PUBLIC,
      tags: ['Authorisations'],
      operationId: 'getAuthorisationStatus',
      summary: 'Whether an authorisation still stands (public)',
      description:
        "`valid`; `suspended` while a new authorisation zone has the flight back under its authority's review (do not fly); " +
        '`revoked` when the request was cancelled, rescinded (a new restriction now prohibits the flight) or rejected while ' +
        'suspended, or when a later approval replaced it (the approval that ends a suspension issues a new authorisation); ' +
        '`expired` after the flight window. Nothing else: no reason, time or zone. No API key; limited per client IP.',
      responses: { '200': response('The status.', DataEnvelope(AuthorisationStatusRecord)), '404': notFound },
    },
  },
  '/.well-known/jwks.json': {
    get: {
      ...PUBLIC,
      tags: ['Authorisations'],
      operationId: 'getAuthorisationKeys',
      summary: 'The public keys of signed authorisations (JWKS, public)',
      description:
        'Ed25519 keys (RFC 8037) with `kid` (their RFC 7638 thumbprint): the current signing key first, then the keys ' +
        'used before the last rotations, so tokens signed before a rotation keep verifying. Cache for up to 5 minutes; ' +
        'fetch again when a token names an unknown `kid`. No API key; limited per client IP.',
      responses: { '200': response('The key set.', AuthorisationJwks, 'application/jwk-set+json') },
    },
  },
};
