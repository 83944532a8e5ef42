import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A new key: `dfc_<16 hex id>_<43 base64url>`, i.e. a 64-bit public id to find
 * the record and a 256-bit random secret. Such a secret cannot be guessed, so
 * a fast hash (SHA-256) stores it safely; no slow password hash is needed.
 */
export function generateApiKey(): { id: string; key: string } {
  const id = randomBytes(8).toString('hex');
  return { id, key: `dfc_${id}_${randomBytes(32).toString('base64url')}` };
}

/** SHA-256 of the whole key, hex: the only form in which a key is stored. */
export function digestApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented key with a stored digest. */
export function apiKeyMatches(key: string, storedDigest: string): boolean {
  const presented = createHash('sha256').update(key, 'utf8').digest();
  const stored = Buffer.from(storedDigest, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
