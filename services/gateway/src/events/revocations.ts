import { RoutingKeys, type ApiKeyRevoked, type EventEnvelope } from '@dfc/contracts';
import type { Broker } from '@dfc/kit/broker';
import type { Logger } from '@dfc/kit/logging';
import type { KeyCache } from '../store/key-cache.js';

/**
 * `api_key.revoked` → drop the key from this replica's cache at once. The queue
 * is a broadcast one (exclusive to this replica), so every replica hears every
 * revocation; a replica that misses one still forgets the key when its cache
 * entry expires.
 */
export function consumeRevocations(broker: Broker, keys: KeyCache, log: Logger): Promise<void> {
  return broker.subscribe({
    queue: 'gateway.api-key-revocations',
    bindings: [RoutingKeys.apiKeyRevoked],
    broadcast: true,
    handler: (event: EventEnvelope) => {
      const keyId = (event.data as Partial<ApiKeyRevoked> | null)?.key_id;
      if (typeof keyId !== 'string') {
        log.warn({ event_id: event.id }, 'api_key.revoked without a key_id ignored');
      } else {
        const dropped = keys.revoke(keyId);
        log.info({ key_id: keyId, dropped, event_id: event.id }, 'api key revoked');
      }
      return Promise.resolve();
    },
  });
}
