import { mongoReady, verifyIndexes } from '@dfc/kit/db';
import { InternalTokenVerifier } from '@dfc/kit/http';
import type { Service, ServiceResources } from '@dfc/kit/service';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { EventPublisher } from './events/publisher.js';
import { OperatorMetrics } from './metrics.js';
import { PasswordHasher } from './security/passwords.js';
import { createStores } from './store/index.js';
import { bootstrapAdminKey } from './use-cases/bootstrap-admin-key.js';
import type { UseCaseDeps } from './use-cases/deps.js';
import { KeyedQueue } from './use-cases/keyed-queue.js';

export interface OperatorService extends Service {
  deps: UseCaseDeps;
}

/** Wires the stores, the outbox publisher, metrics and the password hasher of one replica. */
export function createOperatorService(resources: ServiceResources<Config>): OperatorService {
  const { config, connection, broker, log, registry } = resources;
  const stores = createStores(connection);
  const publisher = new EventPublisher(stores, broker, log, registry);
  const deps: UseCaseDeps = {
    ...stores,
    passwords: new PasswordHasher({
      memoryCostKib: config.ARGON2_MEMORY_KIB,
      timeCost: config.ARGON2_TIME_COST,
      parallelism: config.ARGON2_PARALLELISM,
    }),
    events: publisher,
    metrics: new OperatorMetrics(registry),
    operatorChanges: new KeyedQueue(),
    log,
    clock: resources.now ?? (() => new Date()),
  };
  const app = buildApp({
    log,
    registry,
    verifier: new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY),
    readiness: [
      { name: 'mongo', ready: () => mongoReady(connection) },
      { name: 'broker', ready: () => broker.isConnected() },
    ],
    useCases: deps,
  });
  return {
    app,
    deps,
    async start() {
      await verifyIndexes(connection);
      const adminKeyId = await bootstrapAdminKey(deps, config.ADMIN_API_KEY);
      log.info({ key_id: adminKeyId }, 'bootstrap admin key in place');
      publisher.relay.start();
    },
    stop: () => publisher.relay.stop(),
  };
}
