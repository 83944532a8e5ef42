import type { Connection } from 'mongoose';
import { changeModel } from './change-model.js';
import { flightRequestModel, reviewItemPointerModel } from './flight-request-model.js';
import { operatorProjectionModel } from './operator-model.js';
import { zoneChangeModel, zoneModel } from './zone-model.js';

/** Registers every model of the service on its connection: what the index migration builds. */
export function registerModels(connection: Connection): void {
  flightRequestModel(connection);
  reviewItemPointerModel(connection);
  changeModel(connection);
  operatorProjectionModel(connection);
  zoneModel(connection);
  zoneChangeModel(connection);
}
