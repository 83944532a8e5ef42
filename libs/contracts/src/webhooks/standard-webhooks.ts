import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from './kinds.js';
import type { RawBody } from './verify.js';

/**
 * Standard Webhooks (standardwebhooks.com), sent beside `X-Webhook-Signature`
 * so that the `standardwebhooks` libraries of every language verify our
 * deliveries:
 *
 *   webhook-id: <event id>   webhook-timestamp: <unix seconds>
 *   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")> [v1,<…>]
 *
 * The key is the secret's part after `whsec_`, base64-decoded (the secrets
 * are `whsec_` + standard base64 of 32 random bytes, so those libraries
 * decode them as they are).
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export interface StandardSignOptions {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  rawBody: RawBody;
  /** Newest first; one `v1,` signature each, separated by spaces. */
  secrets: readonly string[];
}

export function signStandardWebhook({ id, timestamp, rawBody, secrets }: StandardSignOptions): string {
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', encodedKey(secret), { encoding: 'base64' }).update(`${id}.${timestamp}.`).update(rawBody).digest('base64')}`,
    )
    .join(' ');
}

/**
 * The key as base64 text, which `createHmac` decodes itself (both alphabets, so secrets issued before the
 * switch to standard base64 still sign). Not a decoded Buffer: Node 24 tells a Buffer key from a KeyObject
 * by two checks that each throw and catch an error: 19 µs a signature with a Buffer, 2–3 µs with the text.
 */
function encodedKey(secret: string): string {
  return secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
}
