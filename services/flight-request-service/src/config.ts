import { Type, type Static } from '@sinclair/typebox';
import { amqpConfig, commonConfig, internalTokenVerifyConfig, loadConfig, mongoConfig } from '@dfc/kit/config';

/** Environment of the flight-request-service; every number PRODUCT.md fixes has its default here. */
export const FlightRequestServiceConfig = Type.Object({
  ...commonConfig,
  ...mongoConfig,
  ...amqpConfig,
  ...internalTokenVerifyConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8082 }),
  /** Where a submission reads the operator's current facts (existence, CTR exemption), with the caller's own internal token. */
  OPERATOR_SERVICE_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:8081' }),
  /**
   * `registry`: those facts from operator-service at decision time; `projection`: from the event-fed
   * projection alone, which may lag a change (only for a service run without operator-service: its own tests).
   */
  OPERATOR_FACTS: Type.Union([Type.Literal('registry'), Type.Literal('projection')], { default: 'registry' }),
  MONGO_DB: Type.String({ minLength: 1, default: 'dfc_flight_requests' }),
  OUTBOX_PUBLISH: Type.Boolean({ default: true }),
  EXPIRY_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 30_000 }),
  /**
   * Days a request is kept after it reached a final status (Rejected, Cancelled, Expired,
   * Rescinded), then purged with its review items and Idempotency-Key claims; 0 keeps every one.
   */
  FLIGHT_REQUEST_RETENTION_DAYS: Type.Number({ minimum: 0, default: 0 }),
  PURGE_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 3_600_000 }),
  ZONE_RELOAD_INTERVAL_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
  MAX_ALTITUDE_M: Type.Integer({ minimum: 1, default: 500 }),
  MAX_DURATION_HOURS: Type.Number({ exclusiveMinimum: 0, default: 24 }),
  MAX_AREA_KM2: Type.Number({ exclusiveMinimum: 0, default: 1000 }),
  MAX_START_AHEAD_DAYS: Type.Number({ exclusiveMinimum: 0, default: 90 }),
  START_GRACE_MINUTES: Type.Number({ minimum: 0, default: 5 }),
  ALTITUDE_REVIEW_ABOVE_M: Type.Integer({ minimum: 0, default: 120 }),
  NATIONAL_AUTHORITY: Type.String({ minLength: 1, default: 'NATIONAL' }),
  /**
   * A folder of SRTM `.hgt` tiles (`N46E007.hgt`): the terrain zone limits in AMSL or WGS-84 heights are compared
   * against. Empty: no terrain, and such limits count as met wherever a flight is.
   */
  TERRAIN_DIR: Type.String({ default: '' }),
  /** Ed25519 private key (PEM, PKCS#8) that signs flight authorisations; a secret (use AUTHORISATION_SIGNING_KEY_FILE). */
  AUTHORISATION_SIGNING_KEY: Type.String({ minLength: 1 }),
  /**
   * Public keys (PEM, SPKI, concatenated) published in the JWKS beside the signing key, which never sign:
   * during a rotation the incoming key before it signs, then the outgoing one until its tokens expire.
   */
  AUTHORISATION_PREVIOUS_PUBLIC_KEYS: Type.String({ default: '' }),
});
export type FlightRequestServiceConfig = Static<typeof FlightRequestServiceConfig>;

export function loadFlightRequestServiceConfig(env: NodeJS.ProcessEnv = process.env): FlightRequestServiceConfig {
  return loadConfig(FlightRequestServiceConfig, env);
}
