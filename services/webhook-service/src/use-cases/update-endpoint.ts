import { DISABLED_REASONS, healthWhenEnabled } from '../domain/endpoint-health.js';
import { checkEndpointUpdate } from '../domain/endpoint-input.js';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/**
 * url, events, description, enabled. Enabling again forgets why it was
 * disabled and the failing streak, so the 5-day clock starts afresh; it
 * replays nothing (deliveries that failed meanwhile can be redelivered).
 */
export async function updateEndpoint(deps: WebhookDeps, id: string, scope: OwnerScope, input: unknown): Promise<WebhookEndpoint> {
  const fields = checkEndpointUpdate(input, deps.policy);
  const endpoint = await findEndpoint(deps, id, scope);
  return deps.endpoints.change(endpoint._id, (current) => {
    const set: Partial<WebhookEndpoint> = { updated_at: deps.now() };
    if (fields.url !== undefined) set.url = fields.url;
    if (fields.events !== undefined) set.events = fields.events;
    if (fields.description !== undefined) set.description = fields.description;
    if (fields.enabled === true && !current.enabled) Object.assign(set, healthWhenEnabled());
    if (fields.enabled === false && current.enabled) Object.assign(set, { enabled: false, disabled_reason: DISABLED_REASONS.byOwner });
    return { set };
  });
}
