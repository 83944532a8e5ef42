import type { Role } from '@dfc/contracts';

/**
 * The gateway's routing table (docs/architecture.md, "Gateway routing"), as
 * pure functions of method and path so the rules can be read and tested alone.
 */
export type UpstreamName = 'operator-service' | 'flight-request-service' | 'webhook-service';

export interface ProxyRoute {
  upstream: UpstreamName;
  /** The table prefix; a bounded label for metrics and logs (never the raw path). */
  label: string;
  /** Reachable without an API key (the call goes on as `anonymous`). */
  public: boolean;
  /** Which per-IP budget a public route draws on: each has its own (PRODUCT.md, rate limits). */
  publicKind: PublicRouteKind | undefined;
  bodyLimitBytes: number;
  /** How long the upstream may take to answer, when the route needs longer than every other (undefined: `UPSTREAM_TIMEOUT_MS`). */
  timeoutMs: number | undefined;
  /** The only roles the route serves, checked before a body is read; undefined: the service decides. */
  roles: readonly Role[] | undefined;
}

/** Registration (`POST /api/operators`), or an operator's keys managed with HTTP Basic. */
export type PublicRouteKind = 'registration' | 'api-keys' | 'authorisations';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
/** Bulk geo-zone imports carry whole FeatureCollections. */
export const ZONE_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/**
 * A national dataset (thousands of zones, up to the body limit) is checked whole and written in bulk before the
 * answer: on a busy database that can outlast the default upstream timeout meant for single requests.
 */
export const ZONE_IMPORT_UPSTREAM_TIMEOUT_MS = 120_000;

/** The public keys of signed flight authorisations (the flight-request-service holds and rotates them). */
export const JWKS_PATH = '/.well-known/jwks.json';

const PREFIXES: ReadonlyArray<readonly [string, UpstreamName]> = [
  ['/api/operators', 'operator-service'],
  ['/api/api-keys', 'operator-service'],
  ['/api/flight-requests', 'flight-request-service'],
  ['/api/zones', 'flight-request-service'],
  ['/api/reviews', 'flight-request-service'],
  ['/api/webhooks', 'webhook-service'],
  ['/api/authorisations', 'flight-request-service'],
  [JWKS_PATH, 'flight-request-service'],
];

/** The one route whose bodies may be large is an admin's (the flight-request-service says so too): nobody else's body is read. */
const ADMIN_ONLY: readonly Role[] = ['admin'];

/**
 * The routes allowed bodies over the default limit, and who may send them; the ingress in front sizes these paths
 * alike (k8s/base/ingress.yaml, checked by scripts/ci/check-manifests.py).
 */
export const LARGE_BODY_ROUTES: ReadonlyArray<{ method: string; path: string; limitBytes: number; timeoutMs: number; roles: readonly Role[] }> = [
  {
    method: 'POST',
    path: '/api/zones/import',
    limitBytes: ZONE_IMPORT_BODY_LIMIT_BYTES,
    timeoutMs: ZONE_IMPORT_UPSTREAM_TIMEOUT_MS,
    roles: ADMIN_ONLY,
  },
];

const VERSION_PREFIX = '/api/v1';
/** Key issuance, listing and revocation: the operator-service checks HTTP Basic there. */
const API_KEYS_OF_OPERATOR = /^\/api\/operators\/[^/]+\/api-keys(?:\/[^/]+)?$/;
/** Anyone holding a flight authorisation may ask whether it still stands. */
const AUTHORISATION_STATUS = /^\/api\/authorisations\/[^/]+$/;
/**
 * `.` / `..` segments and encoded (back)slashes: a path must never climb out of
 * its prefix into a service's `/internal` or operations routes.
 */
const ESCAPING_PATH = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)|%2f|%5c|\\/i;

/**
 * `/api/v1/<rest>` and `/api/<rest>` are the same route: the versioned form is
 * rewritten so services serve `/api/...` only. Other paths are left as they are.
 */
export function canonicalPath(path: string): string {
  if (path === VERSION_PREFIX || path.startsWith(`${VERSION_PREFIX}/`)) return `/api${path.slice(VERSION_PREFIX.length)}`;
  return path;
}

/** The upstream serving a canonical path, or undefined (404) for anything outside the table. */
export function resolveProxyRoute(method: string, path: string): ProxyRoute | undefined {
  if (ESCAPING_PATH.test(path)) return undefined;
  const entry = PREFIXES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  if (!entry) return undefined;
  const [label, upstream] = entry;
  const publicKind = publicKindOf(method, path);
  const large = LARGE_BODY_ROUTES.find((route) => route.method === method && route.path === path);
  return {
    upstream,
    label,
    public: publicKind !== undefined,
    publicKind,
    bodyLimitBytes: large?.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    timeoutMs: large?.timeoutMs,
    roles: large?.roles,
  };
}

/**
 * Registration, everything under an operator's api-keys (docs/architecture.md,
 * public routes), and what outside verifiers of authorisations read: the key
 * set and a token's status. All of them are limited per client IP.
 */
export function isPublic(method: string, path: string): boolean {
  return publicKindOf(method, path) !== undefined;
}

function publicKindOf(method: string, path: string): PublicRouteKind | undefined {
  if (method === 'POST' && path === '/api/operators') return 'registration';
  if (API_KEYS_OF_OPERATOR.test(path)) return 'api-keys';
  if (method === 'GET' && (path === JWKS_PATH || AUTHORISATION_STATUS.test(path))) return 'authorisations';
  return undefined;
}
