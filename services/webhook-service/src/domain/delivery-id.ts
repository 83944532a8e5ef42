import { createHash } from 'node:crypto';

/** The namespace of delivery ids (a random UUID fixed once): ids of other systems' names never collide with ours. */
const DELIVERY_NAMESPACE = Buffer.from('6f1c2a4e8b7d4c3a9e5f0d1b2c3a4b5c', 'hex');

/**
 * The id of the delivery of one event to one endpoint: a name-based UUID (RFC 9562 version 5)
 * of the pair, so the `_id` alone is unique per (event, endpoint), which a collection sharded on
 * a hashed `_id` can enforce and a unique index on the pair cannot. Six lines of node:crypto
 * rather than a dependency for them.
 */
export function deliveryId(eventId: string, endpointId: string): string {
  const digest = createHash('sha1').update(DELIVERY_NAMESPACE).update(`${eventId}\u0000${endpointId}`).digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
