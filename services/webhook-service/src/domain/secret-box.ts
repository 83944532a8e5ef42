import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A secret as stored: AES-256-GCM ciphertext, its random IV and auth tag (base64). */
export interface SealedSecret {
  ciphertext: string;
  iv: string;
  tag: string;
}

const IV_BYTES = 12;
/** Opened secrets kept in memory: every attempt signs with its endpoint's secrets, and opening them is most of the signing's CPU. */
const OPENED_MAX = 10_000;
const OPENED_TTL_MS = 60_000;

/**
 * Encrypts signing secrets at rest. The endpoint id is bound in as
 * additional authenticated data, so a ciphertext copied onto another
 * endpoint's document does not decrypt there. During a rotation of the key a
 * second one opens secrets without ever sealing: the incoming key first, then
 * the outgoing one until `reseal` has moved every secret onto the current key
 * (docs/operations.md "Key and secret rotation").
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly decryptOnlyKeys: Buffer[];
  /** By endpoint and the whole sealed secret: a secret sealed anew is opened anew, a tampered one is never taken for a known one. */
  private readonly opened = new LRUCache<string, string>({ max: OPENED_MAX, ttl: OPENED_TTL_MS });

  constructor(base64Key: string, decryptOnlyBase64Keys: string[] = []) {
    this.key = decodeKey(base64Key);
    this.decryptOnlyKeys = decryptOnlyBase64Keys.map(decodeKey);
  }

  seal(plaintext: string, endpointId: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  /** With the current key, else a decrypt-only one; throws when none opens it. */
  open(sealed: SealedSecret, endpointId: string): string {
    const memo = `${endpointId}\u0000${sealed.iv}\u0000${sealed.tag}\u0000${sealed.ciphertext}`;
    const known = this.opened.get(memo);
    if (known !== undefined) return known;
    for (const key of [this.key, ...this.decryptOnlyKeys]) {
      const plaintext = tryOpen(key, sealed, endpointId);
      if (plaintext === undefined) continue;
      this.opened.set(memo, plaintext);
      return plaintext;
    }
    throw new Error(`neither WEBHOOK_SECRET_KEY nor WEBHOOK_SECRET_KEY_DECRYPT_ONLY opens the secret of endpoint ${endpointId}`);
  }

  /** The secret sealed anew under the current key, or undefined when it already is. */
  reseal(sealed: SealedSecret, endpointId: string): SealedSecret | undefined {
    if (tryOpen(this.key, sealed, endpointId) !== undefined) return undefined;
    return this.seal(this.open(sealed, endpointId), endpointId);
  }
}

function decodeKey(base64Key: string): Buffer {
  const key = Buffer.from(base64Key, base64Key.includes('-') || base64Key.includes('_') ? 'base64url' : 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes, base64-encoded');
  return key;
}

function openWith(key: Buffer, sealed: SealedSecret, endpointId: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

/** Undefined when the key is not the one that sealed it (GCM's tag does not match). */
function tryOpen(key: Buffer, sealed: SealedSecret, endpointId: string): string | undefined {
  try {
    return openWith(key, sealed, endpointId);
  } catch {
    return undefined;
  }
}
