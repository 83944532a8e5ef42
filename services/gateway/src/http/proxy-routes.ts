import type { Middleware } from 'koa';
import type { Principal } from '@dfc/contracts';
import type { BodyBudget } from '@dfc/kit/http';
import { ForbiddenError, UnauthenticatedError } from '@dfc/kit/errors';
import { resolveProxyRoute, type ProxyRoute } from '../domain/routing.js';
import type { InternalTokenCache } from '../store/token-cache.js';
import type { Upstreams } from '../upstream/proxy.js';
import { ANONYMOUS, identifyCaller, type CallerIdentification } from '../use-cases/identify-caller.js';
import type { RateLimits } from './rate-limit.js';
import { forwardedBody, type ForwardedBody } from './request-body.js';
import type { GatewayContext, GatewayState } from './state.js';

export interface ProxyRouteDeps extends CallerIdentification {
  rateLimits: RateLimits;
  /** What the bodies streamed through at once may hold of this process's heap. */
  bodyBudget: BodyBudget;
  tokens: InternalTokenCache;
  upstreams: Upstreams;
  /** Whether X-Forwarded-* of the client come from a trusted load balancer. */
  trustProxy: boolean;
}

/**
 * Every API call the gateway passes on, in the order of the documented
 * statuses: no such route 404 → who calls 401 (429 past too many failures; OPTIONS skips both) → too many calls 429 → a
 * role the route does not serve 403, before its body is read → body rules on the headers 413/415/503 → the body streamed
 * to the service, unparsed (413 once it passes the route's limit) → the service's own answer, 400 and 422 for what its
 * body holds included (503 when it does not answer, or when too many calls already wait for it).
 */
export function proxyRoutes(deps: ProxyRouteDeps): Middleware<GatewayState> {
  return async (ctx, next) => {
    const route = resolveProxyRoute(ctx.method, ctx.path);
    if (route === undefined) {
      await next();
      return;
    }
    labelForMetrics(ctx, route);
    // OPTIONS asks what a route allows, never for data: no key needed, none checked or counted (a
    // browser's preflight carries none). The service answers 204 with its route's Allow.
    const principal = ctx.method === 'OPTIONS' ? ANONYMOUS : await identifyCallerWithinLimits(ctx, route, deps);
    if (ctx.method !== 'OPTIONS') await deps.rateLimits.enforce(ctx, route, principal);
    if (ctx.method !== 'OPTIONS' && route.roles !== undefined && !route.roles.includes(principal.role)) throw new ForbiddenError();
    const login = ctx.method === 'OPTIONS' ? undefined : basicLoginOf(ctx.get('Authorization'));
    if (login !== undefined) await deps.rateLimits.takeLoginAttempt(ctx, login);
    let refusedPassword = false;
    try {
      const body = forwardedBody(ctx, route, deps.bodyBudget);
      const headers = upstreamHeaders(ctx, await deps.tokens.tokenFor(principal), body, deps.trustProxy);
      await deps.upstreams.forward(ctx, { upstream: route.upstream, headers, body, timeoutMs: route.timeoutMs });
      // The operator-service alone knows whether the password was right; its 401 is the failed login.
      refusedPassword = ctx.status === 401;
    } finally {
      if (login !== undefined && !refusedPassword) {
        await deps.rateLimits.giveBackLogin(ctx, login).catch((error: unknown) => ctx.state.log?.warn({ err: error }, 'login count not given back'));
      }
    }
  };
}

/** The email of an `Authorization: Basic` header, or undefined without one (a header that does not decode counts under its raw text). */
function basicLoginOf(authorization: string): string | undefined {
  const match = /^Basic\s+(\S*)/i.exec(authorization);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decoded.slice(0, colon) : decoded;
}

async function identifyCallerWithinLimits(ctx: GatewayContext, route: ProxyRoute, deps: ProxyRouteDeps): Promise<Principal> {
  try {
    // An operator's keys take HTTP Basic or a key; both at once (even one of them empty) would let a
    // wrong password ride on a good key.
    if (route.publicKind === 'api-keys' && ctx.headers['x-api-key'] !== undefined && ctx.headers['authorization'] !== undefined) {
      throw new UnauthenticatedError();
    }
    return await identifyCaller({ apiKey: ctx.get('X-API-Key'), publicRoute: route.public, requestId: ctx.state.requestId }, deps);
  } catch (error) {
    if (error instanceof UnauthenticatedError) await deps.rateLimits.countFailedAuthentication(ctx);
    throw error;
  }
}

/**
 * What the service receives beyond the client's own headers: the internal
 * token naming the principal, the request id, where the call came from. A
 * client's own X-Internal-Token is overwritten by the gateway's; the API key
 * never leaves the gateway (upstream/proxy.ts withholds it).
 */
function upstreamHeaders(ctx: GatewayContext, token: string, body: ForwardedBody | undefined, trustProxy: boolean): Record<string, string> {
  const socketAddress = ctx.req.socket.remoteAddress ?? '';
  const chain = trustProxy ? ctx.get('X-Forwarded-For') : '';
  const headers: Record<string, string> = {
    'x-internal-token': token,
    'x-request-id': ctx.state.requestId,
    'x-forwarded-for': chain === '' ? socketAddress : `${chain}, ${socketAddress}`,
    // Services build Location and page links from these: the public address, never the client's Host.
    'x-forwarded-host': ctx.state.publicOrigin.host,
    'x-forwarded-proto': ctx.state.publicOrigin.protocol,
  };
  // The client's Content-Type goes on as it came; a body of declared length keeps it, a chunked one is sent chunked.
  if (body?.declaredBytes !== undefined) headers['content-length'] = String(body.declaredBytes);
  return headers;
}

/**
 * The kit's HTTP histogram labels a request by the route koa-router matched;
 * proxied calls match no router, so they are labelled by their table prefix
 * (bounded cardinality) instead of all being "unmatched".
 */
function labelForMetrics(ctx: GatewayContext, route: ProxyRoute): void {
  (ctx as unknown as { _matchedRoute?: string })._matchedRoute = `${route.label}/*`;
}
