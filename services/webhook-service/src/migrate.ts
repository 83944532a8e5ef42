import { migrateIndexes } from '@dfc/kit/db';
import { RETENTION_SETTINGS, retentionOf, WebhookServiceConfig } from './config.js';
import { registerModels } from './store/models.js';

/** Builds the webhook-service's indexes (`npm run migrate`; the webhook-service-migrate Job). */
await migrateIndexes(
  'webhook-service',
  WebhookServiceConfig,
  (connection, settings) => registerModels(connection, retentionOf(settings)),
  process.env,
  RETENTION_SETTINGS,
);
