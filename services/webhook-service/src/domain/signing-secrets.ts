import { randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '@dfc/contracts';

/** `whsec_` + 32 random bytes in standard base64 (44 characters), the format Standard Webhooks libraries decode. */
export function generateSigningSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** A stored secret's lifetime: `expires_at` null means current. */
export interface SecretLifetime {
  created_at: Date;
  expires_at: Date | null;
}

/** The secrets that still sign, newest first. */
export function activeSecrets<S extends SecretLifetime>(secrets: readonly S[], now: Date): S[] {
  return secrets
    .filter((secret) => secret.expires_at === null || secret.expires_at.getTime() > now.getTime())
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
}

/**
 * After a rotation: the new secret first, every secret that was still current
 * kept for the overlap (so receivers can switch without losing a delivery),
 * and secrets that had already expired dropped.
 */
export function rotateSecrets<S extends SecretLifetime>(secrets: readonly S[], fresh: S, now: Date, overlapMs: number): S[] {
  const overlapEnd = new Date(now.getTime() + overlapMs);
  const kept = activeSecrets(secrets, now).map((secret) => ({
    ...secret,
    expires_at: secret.expires_at && secret.expires_at < overlapEnd ? secret.expires_at : overlapEnd,
  }));
  return [fresh, ...kept.filter((secret) => overlapMs > 0 && secret.expires_at.getTime() > now.getTime())];
}
