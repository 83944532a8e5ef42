import { migrateIndexes } from '@dfc/kit/db';
import { FlightRequestServiceConfig } from './config.js';
import { registerModels } from './store/models.js';

/** Builds the flight-request-service's indexes (`npm run migrate`; the flight-request-service-migrate Job). */
await migrateIndexes('flight-request-service', FlightRequestServiceConfig, registerModels);
