import { runService } from '@dfc/kit/service';
import { loadWebhookConfig } from './config.js';
import { createWebhookService } from './service.js';

await runService('webhook-service', loadWebhookConfig, createWebhookService);
