import type { Connection } from 'mongoose';
import { attemptModel } from './attempt-model.js';
import { deliveryModel } from './delivery-model.js';
import { webhookEndpointModel } from './endpoint-model.js';
import { endpointSlotModel } from './endpoint-slot-model.js';

/** Registers every model of the service on its connection: what the index migration builds. */
export function registerModels(connection: Connection): void {
  webhookEndpointModel(connection);
  deliveryModel(connection);
  attemptModel(connection);
  endpointSlotModel(connection);
}
