import { migrateIndexes } from '@dfc/kit/db';
import { WebhookServiceConfig } from './config.js';
import { registerModels } from './store/models.js';

/** Builds the webhook-service's indexes (`npm run migrate`; the webhook-service-migrate Job). */
await migrateIndexes('webhook-service', WebhookServiceConfig, registerModels);
