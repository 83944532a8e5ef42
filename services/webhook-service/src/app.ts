import type Koa from 'koa';
import type { Registry } from 'prom-client';
import { createServiceApp, type InternalTokenVerifier, type ReadinessCheck } from '@dfc/kit/http';
import { type Logger } from '@dfc/kit/logging';
import { webhooksRouter } from './http/webhooks-router.js';
import type { WebhookDeps } from './use-cases/delivery-deps.js';

export interface AppDeps {
  log: Logger;
  registry: Registry;
  verifier: InternalTokenVerifier;
  readiness: ReadinessCheck[];
  webhooks: WebhookDeps;
}

/** The HTTP face of the service; no side effects (the dispatcher and consumer are started in service.ts). */
export function buildApp(deps: AppDeps): Koa {
  return createServiceApp({
    log: deps.log,
    registry: deps.registry,
    readiness: deps.readiness,
    verifier: deps.verifier,
    routers: [webhooksRouter(deps.webhooks)],
  });
}
