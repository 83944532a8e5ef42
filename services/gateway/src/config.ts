import { Type, type Static } from '@sinclair/typebox';
import { amqpConfig, commonConfig, loadConfig, mongoConfig } from '@dfc/kit/config';
import { consoleTileLayer, type TileLayer } from './domain/tile-layer.js';

const Url = (fallback: string) => Type.String({ pattern: '^https?://', default: fallback });

export const GatewayConfigSchema = Type.Object({
  ...commonConfig,
  ...amqpConfig,
  /**
   * The shared store of the rate limits (rate-limiter-flexible's MongoDB store): every replica counts into it.
   * Not MONGO_URL: the gateway has no database of its own for the kit to connect and verify.
   */
  RATE_LIMIT_MONGO_URL: mongoConfig.MONGO_URL,
  RATE_LIMIT_MONGO_DB: Type.String({ minLength: 1, default: 'dfc_gateway' }),
  /** Connections to the rate limits' database per replica; counting waits for a free one beyond them. */
  RATE_LIMIT_MONGO_MAX_POOL_SIZE: mongoConfig.MONGO_MAX_POOL_SIZE,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  /** The internal listener that alone serves /metrics (on HOST): the public port does not. */
  METRICS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9464 }),
  /** Ed25519 private key (PEM, PKCS#8) that signs the internal tokens. */
  INTERNAL_TOKEN_PRIVATE_KEY: Type.String({ minLength: 1 }),
  OPERATOR_SERVICE_URL: Url('http://127.0.0.1:8081'),
  FLIGHT_REQUEST_SERVICE_URL: Url('http://127.0.0.1:8082'),
  WEBHOOK_SERVICE_URL: Url('http://127.0.0.1:8083'),
  /** How long a verified key is trusted without asking again; the bound on a lost revocation event. */
  KEY_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 300_000, default: 30_000 }),
  /** Calls per API key, across every replica. */
  RATE_LIMIT_PER_KEY_PER_MINUTE: Type.Integer({ minimum: 1, default: 600 }),
  /** Per client IP across every replica, on registration and (a budget of its own) on key management. */
  RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: Type.Integer({ minimum: 1, default: 20 }),
  /** Failed authentications (unknown keys, refused HTTP Basic logins) per client IP, across every replica. */
  RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE: Type.Integer({ minimum: 1, default: 30 }),
  /** Refused HTTP Basic logins per account (its email), across every replica, in RATE_LIMIT_FAILED_LOGIN_WINDOW_SECONDS. */
  RATE_LIMIT_FAILED_LOGINS_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 10 }),
  RATE_LIMIT_FAILED_LOGIN_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 900 }),
  /** Public authorisation checks (`/api/v1/authorisations/{jti}`, `/.well-known/jwks.json`) per client IP, across every replica. */
  RATE_LIMIT_AUTHORISATION_CHECKS_PER_IP_PER_MINUTE: Type.Integer({ minimum: 1, default: 120 }),
  /** Trust X-Forwarded-For/Host/Proto from a load balancer in front (one hop) for the client's address. */
  TRUST_PROXY: Type.Boolean({ default: false }),
  /**
   * The gateway's public address, `scheme://host[:port]` (e.g. `https://api.example.org`): every `Location`, page
   * link and the OpenAPI document's `servers` name it, whatever `Host` a client sends. Empty: the request's own
   * `Host`, when ALLOWED_HOSTS lists it.
   */
  PUBLIC_BASE_URL: Type.String({ pattern: '^(https?://[^/?#\\s]+/?)?$', default: '' }),
  /**
   * Without PUBLIC_BASE_URL, the `Host` values (`host[:port]`, comma-separated) the gateway answers for and builds
   * links from; any other is a 400. Empty: `127.0.0.1`, `localhost` and `[::1]` on PORT.
   */
  ALLOWED_HOSTS: Type.String({ pattern: '^([^,\\s/]+(,\\s*[^,\\s/]+)*)?$', default: '' }),
  /**
   * Origins (`scheme://host[:port]`, comma-separated) whose browser scripts may call the API: CORS headers and
   * preflight answers for them only. Empty: CORS off.
   */
  CORS_ALLOWED_ORIGINS: Type.String({ pattern: '^(https?://[^/,\\s]+(,\\s*https?://[^/,\\s]+)*)?$', default: '' }),
  /**
   * A tile layer for the console's maps, drawn instead of the shipped Natural Earth outlines: an XYZ template
   * (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`) or a WMTS RESTful one in Web Mercator (`{TileMatrix}`,
   * `{TileCol}`, `{TileRow}`). The console's CSP then lets images come from its origin. Empty: the shipped basemap.
   */
  CONSOLE_TILE_URL: Type.String({ default: '' }),
  /** Required with CONSOLE_TILE_URL: the credit the tile provider asks for, as plain text (`© OpenStreetMap contributors`). */
  CONSOLE_TILE_ATTRIBUTION: Type.String({ default: '' }),
  /** Where that credit links to (`https://www.openstreetmap.org/copyright`). Empty: no link. */
  CONSOLE_TILE_ATTRIBUTION_URL: Type.String({ default: '' }),
  /** The deepest zoom level the tile layer serves: the console's maps zoom no further. */
  CONSOLE_TILE_MAX_ZOOM: Type.Integer({ minimum: 0, maximum: 24, default: 19 }),
  UPSTREAM_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 30_000 }),
  /** Keep-alive connections per upstream service, at most. */
  UPSTREAM_MAX_SOCKETS: Type.Integer({ minimum: 1, default: 64 }),
  /**
   * Calls per upstream service that may wait for one of its connections; beyond them a call is answered 503 with
   * Retry-After at once rather than queued without bound.
   */
  UPSTREAM_MAX_WAITING: Type.Integer({ minimum: 0, default: 256 }),
  /**
   * A connection to an upstream is closed after this many calls, and (UPSTREAM_CONNECTION_TTL_MS) after this long:
   * each new connection is spread by the Service again, so pods added behind it get their share of the calls.
   */
  UPSTREAM_CONNECTION_MAX_REQUESTS: Type.Integer({ minimum: 2, default: 1_000 }),
  UPSTREAM_CONNECTION_TTL_MS: Type.Integer({ minimum: 1_000, default: 30_000 }),
  KEY_VERIFY_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 5_000 }),
});

export type GatewayConfig = Static<typeof GatewayConfigSchema>;

/** The configuration, with the console's tile layer checked: a layer the map cannot draw refuses to start. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const config = loadConfig(GatewayConfigSchema, env);
  tileLayerOf(config);
  return config;
}

/** The console's tile layer (CONSOLE_TILE_*), or null for the shipped basemap. */
export function tileLayerOf(config: GatewayConfig): TileLayer | null {
  return consoleTileLayer({
    url: config.CONSOLE_TILE_URL,
    attribution: config.CONSOLE_TILE_ATTRIBUTION,
    attributionUrl: config.CONSOLE_TILE_ATTRIBUTION_URL,
    maxZoom: config.CONSOLE_TILE_MAX_ZOOM,
  });
}
