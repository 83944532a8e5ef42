import type { StoredSecret } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';

const PAGE_SIZE = 100;

/**
 * Moves every endpoint's signing secrets onto the current WEBHOOK_SECRET_KEY
 * (the last step before the previous key is dropped). Each endpoint is one
 * versioned write, so a rotation of its secret at the same moment is kept.
 * Passes repeat until one finds nothing left under another key: endpoints
 * deleted mid-pass shift the pages, and none may be missed. Returns how many
 * endpoints it changed.
 */
export async function reencryptSecrets(deps: Pick<WebhookDeps, 'endpoints' | 'secretBox' | 'now'>): Promise<number> {
  let changed = 0;
  for (;;) {
    const inPass = await reencryptPass(deps);
    if (inPass === 0) return changed;
    changed += inPass;
  }
}

async function reencryptPass(deps: Pick<WebhookDeps, 'endpoints' | 'secretBox' | 'now'>): Promise<number> {
  let changed = 0;
  for (let page = 1; ; page += 1) {
    const { items } = await deps.endpoints.list({ operatorUuid: null }, { page, per_page: PAGE_SIZE });
    for (const endpoint of items) {
      if (!resealed(deps, endpoint._id, endpoint.secrets)) continue;
      await deps.endpoints.change(endpoint._id, (current) => {
        const secrets = resealed(deps, current._id, current.secrets);
        return secrets ? { set: { secrets, updated_at: deps.now() } } : null;
      });
      changed += 1;
    }
    if (items.length < PAGE_SIZE) return changed;
  }
}

/** The secrets with each one sealed under the current key, or undefined when they all are. */
function resealed(deps: Pick<WebhookDeps, 'secretBox'>, endpointId: string, secrets: StoredSecret[]): StoredSecret[] | undefined {
  let any = false;
  const result = secrets.map((secret) => {
    const sealed = deps.secretBox.reseal(secret, endpointId);
    if (!sealed) return secret;
    any = true;
    return { ...secret, ...sealed };
  });
  return any ? result : undefined;
}
