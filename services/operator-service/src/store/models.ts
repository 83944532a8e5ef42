import type { Connection } from 'mongoose';
import { apiKeyModel, apiKeyUsageModel } from './api-key-store.js';
import { operatorModel } from './operator-store.js';

/** Registers every model of the service on its connection: what the index migration builds. */
export function registerModels(connection: Connection): void {
  operatorModel(connection);
  apiKeyModel(connection);
  apiKeyUsageModel(connection);
}
