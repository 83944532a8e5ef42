import { randomUUID } from 'node:crypto';
import { ValidationError } from '@dfc/kit/errors';
import { checkEndpointCreate } from '../domain/endpoint-input.js';
import type { OwnerScope } from '../domain/owner-scope.js';
import { generateSigningSecret } from '../domain/signing-secrets.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** The plaintext, returned to the caller once and never stored. */
  secret: string;
}

/** Validate → check the operator's cap → generate a secret → store it encrypted → hand the plaintext back once. */
export async function createEndpoint(deps: WebhookDeps, scope: OwnerScope, input: unknown): Promise<EndpointWithSecret> {
  const fields = checkEndpointCreate(input, deps.policy);
  if (scope.operatorUuid === null) throw ValidationError.of('operator_uuid', 'The operator uuid field is required.');
  const cap = deps.policy.maxEndpointsPerOperator;
  if ((await deps.endpoints.countOwnedBy(scope.operatorUuid)) >= cap) throw overCap(cap);
  const now = deps.now();
  const id = randomUUID();
  const secret = generateSigningSecret();
  const endpoint = await deps.endpoints.insert({
    _id: id,
    operator_uuid: scope.operatorUuid,
    url: fields.url,
    events: fields.events,
    description: fields.description ?? null,
    enabled: true,
    disabled_reason: null,
    secrets: [{ ...deps.secretBox.seal(secret, id), created_at: now, expires_at: null }],
    consecutive_failures: 0,
    failing_since: null,
    cooling_until: null,
    created_at: now,
    updated_at: now,
  });
  // Creations racing on other replicas may each have seen room: one that lands beyond the cap takes itself back.
  if ((await deps.endpoints.countOwnedBy(scope.operatorUuid)) > cap) {
    await deps.endpoints.remove(id);
    throw overCap(cap);
  }
  return { endpoint, secret };
}

function overCap(cap: number): ValidationError {
  return ValidationError.of(
    'endpoints',
    `An operator may hold at most ${cap} webhook endpoints (WEBHOOK_MAX_ENDPOINTS_PER_OPERATOR); delete one first.`,
  );
}
