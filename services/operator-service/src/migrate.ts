import { migrateIndexes } from '@dfc/kit/db';
import { ConfigSchema } from './config.js';
import { registerModels } from './store/models.js';

/** Builds the operator-service's indexes (`npm run migrate`; the operator-service-migrate Job). */
await migrateIndexes('operator-service', ConfigSchema, registerModels);
