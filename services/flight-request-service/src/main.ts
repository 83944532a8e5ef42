import { runService } from '@dfc/kit/service';
import { loadFlightRequestServiceConfig } from './config.js';
import { createFlightRequestService } from './service.js';

await runService('flight-request-service', loadFlightRequestServiceConfig, createFlightRequestService);
