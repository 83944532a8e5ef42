import type { Connection } from 'mongoose';
import { airspaceCellModel, cellClaimModel } from './airspace-ledger-model.js';
import { flightRequestModel } from './flight-request-model.js';
import { idempotencyKeyModel } from './idempotency-key-store.js';
import { operatorProjectionModel } from './operator-model.js';
import { reviewQueueModel } from './review-item-model.js';
import { datasetModel } from './zone-dataset-store.js';
import { zoneModel } from './zone-model.js';

/** Registers every model of the service on its connection: what the index migration builds. */
export function registerModels(connection: Connection): void {
  flightRequestModel(connection);
  airspaceCellModel(connection);
  cellClaimModel(connection);
  idempotencyKeyModel(connection);
  reviewQueueModel(connection);
  operatorProjectionModel(connection);
  zoneModel(connection);
  datasetModel(connection);
}
