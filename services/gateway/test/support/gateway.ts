import { randomBytes } from 'node:crypto';
import { buildOpenApiDocument, type Principal } from '@dfc/contracts';
import { createLogger } from '@dfc/kit/logging';
import { BodyBudget, createMetricsRegistry, InternalTokenSigner, InternalTokenVerifier, processBodyBudget } from '@dfc/kit/http';
import { generateTokenKeys, listen, type Listening } from '@dfc/kit/testing';
import type { HttpServerLimits } from '@dfc/kit/http';
import { buildApp, buildMetricsApp } from '../../src/app.js';
import { publicOriginResolver } from '../../src/domain/public-origin.js';
import type { TileLayer } from '../../src/domain/tile-layer.js';
import { RateLimits, type RateLimitSettings } from '../../src/http/rate-limit.js';
import { KeyCache } from '../../src/store/key-cache.js';
import type { SharedLimitStore } from '../../src/store/limit-store.js';
import { InternalTokenCache } from '../../src/store/token-cache.js';
import { operatorServiceKeyVerifier } from '../../src/upstream/key-verification.js';
import { Upstreams, type UpstreamSettings } from '../../src/upstream/proxy.js';
import { json, startStubUpstream, type StubUpstream } from './stub-upstream.js';

/** A key of the right shape; `keyId` is its 16-hex id part. */
export function newApiKey(): { key: string; keyId: string } {
  const keyId = randomBytes(8).toString('hex');
  return { key: `dfc_${keyId}_${randomBytes(32).toString('base64url')}`, keyId };
}

export interface TestGateway extends Listening {
  /** Plays operator-service: answers `/internal/api-keys/verify` from `validKeys`, echoes the rest. */
  operators: StubUpstream;
  flights: StubUpstream;
  webhooks: StubUpstream;
  /** Keys the stub operator-service accepts, and whose principal it returns. */
  validKeys: Map<string, Principal>;
  verifier: InternalTokenVerifier;
  keys: KeyCache;
  /** The internal listener serving /metrics (METRICS_PORT in production). */
  metricsUrl: string;
  /** How many verify calls the stub operator-service received. */
  verifyCalls(): number;
  closeAll(): Promise<void>;
}

export interface TestGatewayOptions {
  rateLimits?: Partial<RateLimitSettings>;
  keyCacheTtlMs?: number;
  timeoutMs?: number;
  trustProxy?: boolean;
  serverLimits?: HttpServerLimits;
  consoleDirectory?: string;
  consoleTiles?: TileLayer;
  publicBaseUrl?: string;
  allowedHosts?: string;
  corsAllowedOrigins?: string;
  /** The shared store of failure counters; default: each limit in memory. */
  limitStore?: SharedLimitStore;
  /** The bytes of bodies in flight the gateway may hold; default: the process's share of its heap. */
  bodyBudgetBytes?: number;
  /** The pools to the stub services; default: 16 connections each, 256 calls waiting, recycled after 1,000 calls or 30 s. */
  upstream?: Partial<Pick<UpstreamSettings, 'maxSockets' | 'maxWaiting' | 'connectionMaxRequests' | 'connectionTtlMs'>>;
}

/**
 * The gateway in-process in front of stub services (the stubs stand in for
 * services outside this test: their own tests cover them), signing with a
 * fresh key pair whose public half the test verifies with.
 */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const tokenKeys = generateTokenKeys();
  const verifier = new InternalTokenVerifier(tokenKeys.publicKeyPem);
  const validKeys = new Map<string, Principal>();
  const operators = await startStubUpstream();
  const flights = await startStubUpstream();
  const webhooks = await startStubUpstream();
  const echoOperators = operators.handler;
  operators.handler = (call, response) => {
    if (call.url !== '/internal/api-keys/verify') return echoOperators(call, response);
    void verifier
      .verify(String(call.headers['x-internal-token']))
      .then((caller) => {
        if (caller.role !== 'system') return json(response, 403, { message: 'This action is unauthorized.' });
        const principal = validKeys.get((JSON.parse(call.body) as { key: string }).key);
        if (principal === undefined) return json(response, 401, { message: 'Unauthenticated.' });
        return json(response, 200, { data: principal });
      })
      .catch(() => json(response, 401, { message: 'Unauthenticated.' }));
  };
  const log = createLogger('gateway-test', 'silent');
  const tokens = new InternalTokenCache(new InternalTokenSigner(tokenKeys.privateKeyPem));
  const keys = new KeyCache(options.keyCacheTtlMs ?? 30_000);
  const upstreams = new Upstreams({
    targets: { 'operator-service': operators.url, 'flight-request-service': flights.url, 'webhook-service': webhooks.url },
    timeoutMs: options.timeoutMs ?? 5_000,
    maxSockets: options.upstream?.maxSockets ?? 16,
    maxWaiting: options.upstream?.maxWaiting ?? 256,
    connectionMaxRequests: options.upstream?.connectionMaxRequests ?? 1_000,
    connectionTtlMs: options.upstream?.connectionTtlMs ?? 30_000,
  });
  const registry = createMetricsRegistry('gateway');
  const app = buildApp({
    log,
    registry,
    openApiDocument: buildOpenApiDocument(),
    keys,
    verify: operatorServiceKeyVerifier(upstreams, tokens, 2_000, log),
    rateLimits: new RateLimits(
      {
        perKeyPerMinute: 600,
        publicPerIpPerMinute: 20,
        failedAuthPerIpPerMinute: 30,
        failedLoginsPerAccount: 10,
        failedLoginWindowSeconds: 900,
        authorisationChecksPerIpPerMinute: 120,
        ...options.rateLimits,
      },
      options.limitStore,
    ),
    bodyBudget: options.bodyBudgetBytes === undefined ? processBodyBudget() : new BodyBudget(options.bodyBudgetBytes),
    tokens,
    upstreams,
    trustProxy: options.trustProxy ?? false,
    ...(options.consoleDirectory === undefined ? {} : { consoleDirectory: options.consoleDirectory }),
    consoleTiles: options.consoleTiles ?? null,
    // Port 0, as the gateway listens here: the loopback names on whatever port it gets, unless the test names others.
    publicOriginOf: publicOriginResolver({ baseUrl: options.publicBaseUrl ?? '', allowedHosts: options.allowedHosts ?? '', port: 0 }),
    corsAllowedOrigins: options.corsAllowedOrigins ?? '',
  });
  const listening = await listen(app, options.serverLimits);
  const metrics = await listen(buildMetricsApp(registry));
  return {
    ...listening,
    metricsUrl: metrics.url,
    operators,
    flights,
    webhooks,
    validKeys,
    verifier,
    keys,
    verifyCalls: () => operators.calls.filter((call) => call.url === '/internal/api-keys/verify').length,
    closeAll: async () => {
      await listening.close();
      await metrics.close();
      await upstreams.close();
      await Promise.all([operators.close(), flights.close(), webhooks.close()]);
    },
  };
}

/** An operator key the stub operator-service knows. */
export function grantOperatorKey(gateway: TestGateway, operatorUuid = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d'): { key: string; principal: Principal } {
  const { key, keyId } = newApiKey();
  const principal: Principal = { sub: operatorUuid, role: 'operator', operator_uuid: operatorUuid, key_id: keyId };
  gateway.validKeys.set(key, principal);
  return { key, principal };
}
