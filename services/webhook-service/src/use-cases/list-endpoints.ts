import type { OwnerScope } from '../domain/owner-scope.js';
import type { PageRequest } from '@dfc/kit/pagination';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';

export function listEndpoints(deps: WebhookDeps, scope: OwnerScope, page: PageRequest): Promise<{ items: WebhookEndpoint[]; total: number }> {
  return deps.endpoints.list(scope, page);
}
