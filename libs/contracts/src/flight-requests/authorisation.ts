import { Type, type Static } from '@sinclair/typebox';
import { Double, Int32, Int64, Nullable, UtcTimestamp, Uuid } from '../schema-helpers.js';
import { FindingRecord, FlightAreaSummary } from './requests.js';
import { FlightVolumeRecord } from './volumes.js';

/**
 * The signed authorisation of an Approved flight request: a compact JWS
 * (EdDSA, Ed25519) anyone can verify offline with the keys of
 * `/.well-known/jwks.json`. Header: `alg: EdDSA`, `typ: dfc-authorisation+jwt`, `kid`.
 */
export const AUTHORISATION_TOKEN_TYPE = 'dfc-authorisation+jwt';
export const AUTHORISATION_ISSUER = 'dfc-flight-request-service';
/** How the flight area is made canonical before it is hashed (RFC 8785, JSON Canonicalization Scheme). */
export const FLIGHT_AREA_CANONICALISATION = 'RFC8785';

const Bbox = Type.Array(Double(), { minItems: 4, maxItems: 4, description: '[west, south, east, north]' });

/** The claims of the token (its JWS payload). */
export const AuthorisationClaims = Type.Object(
  {
    iss: Type.Literal(AUTHORISATION_ISSUER),
    sub: Uuid,
    jti: Type.String({ description: '`<flight request uuid>.<position of the approval in status_history>`' }),
    iat: Int64({ minimum: 0, description: 'the approval time (seconds since the epoch)' }),
    exp: Int64({ minimum: 0, description: "the flight window's end (seconds since the epoch)" }),
    flight_request_uuid: Uuid,
    operator_uuid: Uuid,
    operator_registration_number: Nullable(Type.String({ description: 'national operator registration number, when the operator gave one' })),
    start_time: UtcTimestamp,
    end_time: UtcTimestamp,
    max_altitude: Int32({ minimum: 1, description: 'metres above ground' }),
    flight_area_sha256: Type.String({
      pattern: '^[0-9a-f]{64}$',
      description:
        'hex SHA-256 of the flight area (the `flight_area` of GET /api/v1/flight-requests/{uuid}?include_geometry=true) in RFC 8785 canonical JSON',
    }),
    flight_area_canonicalisation: Type.Literal(FLIGHT_AREA_CANONICALISATION),
    flight_area_bbox: Bbox,
    volumes: Type.Optional(
      Type.Array(Type.Object(FlightVolumeRecord.properties), {
        description: 'A request submitted with volumes: the approved volumes (band, window, and which features of the flight area)',
      }),
    ),
    decision: Type.Literal('Approved'),
    decided_by: Type.String({ description: 'screening, reviewer:<authority>, admin' }),
  },
  { $id: 'AuthorisationClaims' },
);
export type AuthorisationClaims = Static<typeof AuthorisationClaims>;

/** GET /api/flight-requests/{uuid}/authorisation */
export const AuthorisationRecord = Type.Object(
  {
    token: Type.String({ description: 'compact JWS' }),
    jti: Type.String(),
    kid: Type.String({ description: 'the key in /.well-known/jwks.json that signed it' }),
    expires_at: Type.String({ format: 'date-time' }),
    claims: AuthorisationClaims,
  },
  { $id: 'AuthorisationRecord' },
);
export type AuthorisationRecord = Static<typeof AuthorisationRecord>;

/**
 * `suspended`: a new authorisation zone put the flight back under review; the approval that ends the review issues a
 * new authorisation and this one is `revoked` from then on.
 */
export const AUTHORISATION_STATES = ['valid', 'suspended', 'revoked', 'expired'] as const;
export type AuthorisationState = (typeof AUTHORISATION_STATES)[number];

/**
 * GET /api/authorisations/{jti}: public, what a verifier needs beyond the signature, and nothing more:
 * whoever holds an id learns no reason, no date and nothing of the operator from it.
 */
export const AuthorisationStatusRecord = Type.Object(
  {
    jti: Type.String(),
    status: Type.Union(AUTHORISATION_STATES.map((state) => Type.Literal(state))),
  },
  { $id: 'AuthorisationStatusRecord' },
);
export type AuthorisationStatusRecord = Static<typeof AuthorisationStatusRecord>;

/** One Ed25519 public key of the JWKS (RFC 8037). */
export const AuthorisationJwk = Type.Object({
  kty: Type.Literal('OKP'),
  crv: Type.Literal('Ed25519'),
  x: Type.String(),
  kid: Type.String({ description: 'RFC 7638 thumbprint of the key' }),
  alg: Type.Literal('EdDSA'),
  use: Type.Literal('sig'),
});
export type AuthorisationJwk = Static<typeof AuthorisationJwk>;

/** GET /.well-known/jwks.json: the current signing key first, then previous keys still accepted. */
export const AuthorisationJwks = Type.Object({ keys: Type.Array(AuthorisationJwk) }, { $id: 'AuthorisationJwks' });
export type AuthorisationJwks = Static<typeof AuthorisationJwks>;

/** A review item screening would open (preview: nothing is stored, so it has no id yet). */
export const ReviewItemDraftRecord = Type.Object({
  kind: Type.String({ description: 'zone_authorisation | altitude | deconfliction' }),
  authority: Type.String(),
  zone_id: Nullable(Type.String()),
  finding_codes: Type.Array(Type.String()),
  message: Type.String(),
});
export type ReviewItemDraftRecord = Static<typeof ReviewItemDraftRecord>;

/** POST /api/flight-requests/preview: what a submission of the same body would get now. */
export const FlightRequestPreview = Type.Object(
  {
    status: Type.Union([Type.Literal('Approved'), Type.Literal('Rejected'), Type.Literal('Pending')]),
    findings: Type.Array(FindingRecord),
    review_items: Type.Array(ReviewItemDraftRecord),
    area: FlightAreaSummary,
    volumes: Type.Array(Type.Object(FlightVolumeRecord.properties), { description: 'the volumes as the record would show them' }),
  },
  { $id: 'FlightRequestPreview' },
);
export type FlightRequestPreview = Static<typeof FlightRequestPreview>;
