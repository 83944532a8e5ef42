import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { mongoReady } from '@dfc/kit/db';
import { type Broker } from '@dfc/kit/broker';
import { type ReadinessCheck } from '@dfc/kit/http';
import { EventPublisher } from './events/publisher.js';
import { OperatorMetrics } from './metrics.js';
import { PasswordHasher, type Argon2Parameters } from './security/passwords.js';
import { createStores } from './store/index.js';
import type { UseCaseDeps } from './use-cases/deps.js';
import { KeyedQueue } from './use-cases/keyed-queue.js';

export interface Wiring {
  useCases: UseCaseDeps;
  publisher: EventPublisher;
  readiness: ReadinessCheck[];
}

/**
 * Connects the parts on a live database connection and broker: stores
 * (registering the models, so `syncIndexes` sees them), the outbox publisher,
 * metrics and the password hasher. Shared by main.ts and the tests.
 */
export function wireService(options: {
  connection: Connection;
  broker: Broker;
  log: Logger;
  registry: Registry;
  argon2: Argon2Parameters;
  clock?: () => Date;
}): Wiring {
  const stores = createStores(options.connection);
  const publisher = new EventPublisher(stores, options.broker, options.log, options.registry);
  const useCases: UseCaseDeps = {
    ...stores,
    passwords: new PasswordHasher(options.argon2),
    events: publisher,
    metrics: new OperatorMetrics(options.registry),
    operatorChanges: new KeyedQueue(),
    log: options.log,
    clock: options.clock ?? (() => new Date()),
  };
  const readiness: ReadinessCheck[] = [
    { name: 'mongo', ready: () => mongoReady(options.connection) },
    { name: 'broker', ready: () => options.broker.isConnected() },
  ];
  return { useCases, publisher, readiness };
}
