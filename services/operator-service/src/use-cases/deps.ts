import type { Logger } from 'pino';
import type { Principal } from '@dfc/contracts';
import type { OperatorMetrics } from '../metrics.js';
import type { PasswordHasher } from '../security/passwords.js';
import type { ApiKeyStore } from '../store/api-key-store.js';
import type { OperatorStore } from '../store/operator-store.js';

/** Everything the use cases reach outside themselves. */
export interface UseCaseDeps {
  operators: OperatorStore;
  apiKeys: ApiKeyStore;
  passwords: PasswordHasher;
  metrics: OperatorMetrics;
  log: Logger;
  clock: () => Date;
}

/** Who is asking (the gateway's principal) and the request id that events carry on. */
export interface Caller {
  principal: Principal;
  requestId: string;
}

/** Email and password from an HTTP Basic header. */
export interface BasicCredentials {
  email: string;
  password: string;
}
