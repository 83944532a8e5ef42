import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A secret as stored: AES-256-GCM ciphertext, its random IV and auth tag (base64). */
export interface SealedSecret {
  ciphertext: string;
  iv: string;
  tag: string;
}

const IV_BYTES = 12;

/**
 * Encrypts signing secrets at rest. The endpoint id is bound in as
 * additional authenticated data, so a ciphertext copied onto another
 * endpoint's document does not decrypt there.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    const key = Buffer.from(base64Key, base64Key.includes('-') || base64Key.includes('_') ? 'base64url' : 'base64');
    if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes, base64-encoded');
    this.key = key;
  }

  seal(plaintext: string, endpointId: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  open(sealed: SealedSecret, endpointId: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(endpointId, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  }
}
