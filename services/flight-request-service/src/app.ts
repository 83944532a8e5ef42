import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createServiceApp, DEFAULT_BODY_LIMIT_BYTES, type InternalTokenVerifier, type ReadinessCheck } from '@dfc/kit/http';
import type { UseCaseDeps } from './use-cases/deps.js';
import { authorisationsRouter } from './http/authorisations-router.js';
import { flightRequestsRouter } from './http/flight-requests-router.js';
import { previewRouter } from './http/preview-router.js';
import { reviewsRouter } from './http/reviews-router.js';
import { zonesRouter, ZONE_IMPORT_PATH } from './http/zones-router.js';

/** A bulk import carries up to 5,000 zone polygons; every other body stays within PRODUCT.md's 1 MiB. */
export const ZONE_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface AppDeps {
  useCases: UseCaseDeps;
  log: Logger;
  registry: Registry;
  verifier: InternalTokenVerifier;
  readiness: ReadinessCheck[];
}

export function buildApp(deps: AppDeps): Koa {
  return createServiceApp({
    log: deps.log,
    registry: deps.registry,
    readiness: deps.readiness,
    verifier: deps.verifier,
    routers: [
      previewRouter(deps.useCases),
      flightRequestsRouter(deps.useCases),
      authorisationsRouter(deps.useCases),
      reviewsRouter(deps.useCases),
      zonesRouter(deps.useCases),
    ],
    bodyLimitBytes: (method, path) =>
      method === 'POST' && path === ZONE_IMPORT_PATH ? ZONE_IMPORT_BODY_LIMIT_BYTES : DEFAULT_BODY_LIMIT_BYTES,
  });
}
