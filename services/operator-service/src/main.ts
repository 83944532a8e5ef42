import { runService } from '@dfc/kit/service';
import { loadServiceConfig } from './config.js';
import { createOperatorService } from './service.js';

await runService('operator-service', loadServiceConfig, createOperatorService);
