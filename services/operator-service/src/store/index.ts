import type { Connection } from 'mongoose';
import { ApiKeyStore } from './api-key-store.js';
import { OperatorStore } from './operator-store.js';

export interface Stores {
  operators: OperatorStore;
  apiKeys: ApiKeyStore;
}

/** Registers the service's models on its connection (before `syncIndexes`). */
export function createStores(connection: Connection): Stores {
  return { operators: new OperatorStore(connection), apiKeys: new ApiKeyStore(connection) };
}
