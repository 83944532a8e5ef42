import { createHash, timingSafeEqual } from 'node:crypto';
import { ConflictError, ValidationError } from '@dfc/kit/errors';

/** PRODUCT.md: the same key and body within 24 h return the first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Fixed namespace of the flight request uuids derived from idempotency keys. */
const NAMESPACE = '6f1c3d52-8a4b-5e7f-9c0d-2b3a4e5f6a7b';

/**
 * One document per key: the request's uuid is derived from the operator and
 * the key (UUIDv5), so the unique uuid index decides between concurrent
 * retries and no separate key store is needed.
 */
export function idempotentUuid(operatorUuid: string, key: string): string {
  const namespace = Buffer.from(NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespace).update(`${operatorUuid}:${key}`, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function bodyDigest(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body), 'utf8').digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw ValidationError.of(
      'Idempotency-Key',
      `The Idempotency-Key header must be between 1 and ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
    );
  }
}

/** A stored request found under the key: replay it, or refuse with the reason. */
export function checkReplay(stored: { body_sha256: string; created_at: Date }, digest: string, now: Date): void {
  if (now.getTime() - stored.created_at.getTime() > IDEMPOTENCY_WINDOW_MS) {
    throw new ConflictError('The Idempotency-Key has expired: it was first used more than 24 hours ago.');
  }
  const same = timingSafeEqual(Buffer.from(stored.body_sha256, 'hex'), Buffer.from(digest, 'hex'));
  if (!same) throw new ConflictError('The Idempotency-Key was already used with a different request body.');
}
