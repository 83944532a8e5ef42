import { createHash, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ConflictError, ValidationError } from '@dfc/kit/errors';

/** PRODUCT.md: the same key and body within 24 h return the first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Which request an operator's key names, the body it came with and when it was first used. */
export interface IdempotencyClaim {
  request_uuid: string;
  body_sha256: string;
  created_at: Date;
}

/**
 * Where the claim of an operator's key is stored. The request it names gets a random uuid: a uuid
 * derived from the operator and the key would let anyone who guesses a key (`order-42`) compute the
 * request's id, and with it the public status of its authorisation.
 */
export function idempotencyRef(operatorUuid: string, key: string): string {
  return createHash('sha256')
    .update(JSON.stringify([operatorUuid, key]), 'utf8')
    .digest('hex');
}

/** SHA-256 of the body in RFC 8785 canonical JSON: the same body with its keys in another order, or a number written otherwise, is the same body. */
export function bodyDigest(body: unknown): string {
  return createHash('sha256')
    .update(canonicalize(body) ?? '', 'utf8')
    .digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw ValidationError.of('Idempotency-Key', `The Idempotency-Key header must be between 1 and ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`);
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
