import type { Connection } from 'mongoose';
import type { OutboxRelay } from '@dfc/kit/outbox';
import { ApiKeyStore } from './api-key-store.js';
import { OperatorStore } from './operator-store.js';

export interface Stores {
  operators: OperatorStore;
  apiKeys: ApiKeyStore;
}

/** Registers the service's models on its connection (before `syncIndexes`); the relay publishes their outboxes. */
export function createStores(connection: Connection, relay: OutboxRelay): Stores {
  return { operators: new OperatorStore(connection, relay), apiKeys: new ApiKeyStore(connection, relay) };
}
