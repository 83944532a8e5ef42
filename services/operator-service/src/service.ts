import { verifyIndexes } from '@dfc/kit/db';
import { OutboxRelay } from '@dfc/kit/outbox';
import { InternalTokenVerifier } from '@dfc/kit/http';
import { dependencyReadiness, type Service, type ServiceResources } from '@dfc/kit/service';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { OperatorMetrics } from './metrics.js';
import { PasswordHasher } from './security/passwords.js';
import { createStores } from './store/index.js';
import { bootstrapAdminKey } from './use-cases/bootstrap-admin-key.js';
import type { UseCaseDeps } from './use-cases/deps.js';

export interface OperatorService extends Service {
  deps: UseCaseDeps;
}

/** Wires the stores with their outbox relay, metrics and the password hasher of one replica. */
export function createOperatorService(resources: ServiceResources<Config>): OperatorService {
  const { config, connection, broker, log, registry } = resources;
  const relay = new OutboxRelay(broker, log, { registry });
  const stores = createStores(connection, relay);
  const deps: UseCaseDeps = {
    ...stores,
    passwords: new PasswordHasher({
      memoryCostKib: config.ARGON2_MEMORY_KIB,
      timeCost: config.ARGON2_TIME_COST,
      parallelism: config.ARGON2_PARALLELISM,
    }),
    metrics: new OperatorMetrics(registry),
    log,
    clock: resources.now ?? (() => new Date()),
  };
  const app = buildApp({
    log,
    registry,
    verifier: new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY),
    readiness: dependencyReadiness(resources),
    useCases: deps,
  });
  return {
    app,
    deps,
    async start() {
      await verifyIndexes(connection);
      const adminKeyId = await bootstrapAdminKey(deps, config.ADMIN_API_KEY);
      log.info({ key_id: adminKeyId }, 'bootstrap admin key in place');
      relay.start();
    },
    stop: () => relay.stop(),
  };
}
