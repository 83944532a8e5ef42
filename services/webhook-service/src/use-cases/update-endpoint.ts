import { NotFoundError } from '@dfc/kit/errors';
import { DISABLED_REASONS } from '../domain/endpoint-health.js';
import { checkEndpointUpdate } from '../domain/endpoint-input.js';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { EndpointChanges } from '../store/endpoint-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/**
 * url, events, description, enabled. Enabling again forgets why it was
 * disabled and the failing streak, so the 5-day clock starts afresh.
 */
export async function updateEndpoint(deps: WebhookDeps, id: string, scope: OwnerScope, input: unknown): Promise<WebhookEndpoint> {
  const fields = checkEndpointUpdate(input, deps.policy);
  const endpoint = await findEndpoint(deps, id, scope);
  const changes: EndpointChanges = {};
  if (fields.url !== undefined) changes.url = fields.url;
  if (fields.events !== undefined) changes.events = fields.events;
  if (fields.description !== undefined) changes.description = fields.description;
  if (fields.enabled === true && !endpoint.enabled) Object.assign(changes, { enabled: true, disabled_reason: null, failing_since: null });
  if (fields.enabled === false && endpoint.enabled) Object.assign(changes, { enabled: false, disabled_reason: DISABLED_REASONS.byOwner });
  const updated = await deps.endpoints.update(endpoint._id, scope, changes, deps.now());
  if (!updated) throw new NotFoundError();
  return updated;
}
