import { createLogger, type Logger } from '@dfc/kit/logging';
import { exitOnStartupFailure, openResources } from '@dfc/kit/service';
import { loadWebhookConfig } from './config.js';
import { createWebhookService } from './service.js';
import { reencryptSecrets } from './use-cases/reencrypt-secrets.js';

/**
 * The re-encryption step of a WEBHOOK_SECRET_KEY rotation (`npm run reencrypt-secrets`; in a pod,
 * `node services/webhook-service/dist/reencrypt-secrets.js`), with the service's own configuration:
 * the new key in WEBHOOK_SECRET_KEY, the old one in WEBHOOK_SECRET_KEY_DECRYPT_ONLY.
 */
let log: Logger | undefined;
try {
  const config = loadWebhookConfig();
  log = createLogger('webhook-service-reencrypt-secrets', config.LOG_LEVEL);
  const opened = await openResources('webhook-service', config, log);
  const { deps } = createWebhookService(opened.resources);
  const changed = await reencryptSecrets(deps);
  log.info({ endpoints_changed: changed }, 'every signing secret is sealed under the current WEBHOOK_SECRET_KEY');
  await opened.close();
} catch (error) {
  exitOnStartupFailure(log, error);
}
