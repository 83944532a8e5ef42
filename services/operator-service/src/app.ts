import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createServiceApp, type InternalTokenVerifier, type ReadinessCheck } from '@dfc/kit/http';
import { apiKeysRouter } from './http/api-keys-router.js';
import { internalRouter } from './http/internal-router.js';
import { operatorsRouter } from './http/operators-router.js';
import type { UseCaseDeps } from './use-cases/deps.js';

export interface AppDeps {
  log: Logger;
  registry: Registry;
  verifier: InternalTokenVerifier;
  readiness: ReadinessCheck[];
  useCases: UseCaseDeps;
}

/** The operator-service's HTTP app. Builds routes only: connecting and listening are main.ts's job. */
export function buildApp(deps: AppDeps): Koa {
  return createServiceApp({
    log: deps.log,
    registry: deps.registry,
    verifier: deps.verifier,
    readiness: deps.readiness,
    routers: [operatorsRouter(deps.useCases), apiKeysRouter(deps.useCases), internalRouter(deps.useCases)],
  });
}
