import { runService } from '@dfc/kit/service';
import { loadGatewayConfig } from './config.js';
import { createGatewayService } from './service.js';

await runService('gateway', loadGatewayConfig, createGatewayService);
