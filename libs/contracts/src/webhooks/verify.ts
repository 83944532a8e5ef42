import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook signature scheme, one implementation shared by the sender
 * (webhook-service) and subscribers:
 *
 *   X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...]
 *
 * The HMAC key is the whole secret string as UTF-8 (`whsec_...`, prefix
 * included). One `v1` is sent per active secret, so during a secret rotation
 * a receiver holding either the old or the new secret accepts the delivery.
 * The timestamp is inside the signed string, so a captured delivery cannot be
 * replayed later with a fresh `t`.
 */
export type RawBody = string | Uint8Array;

export interface SignOptions {
  rawBody: RawBody;
  /** Newest first; every one gets its own `v1`. */
  secrets: string | readonly string[];
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

export function signWebhookPayload({ rawBody, secrets, timestamp }: SignOptions): string {
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  const signatures = toList(secrets).map((secret) => `v1=${hmacHex(secret, t, rawBody)}`);
  return [`t=${t}`, ...signatures].join(',');
}

export interface VerifyOptions {
  rawBody: RawBody;
  /** The `X-Webhook-Signature` header as received. */
  header: string | undefined | null;
  /** Every secret the receiver currently accepts (e.g. old and new during a rotation). */
  secrets: string | readonly string[];
  /** How far `t` may be from now, either way. */
  toleranceSeconds?: number;
  now?: Date;
}

export type VerifyFailure = 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature';

export type VerifyResult = { valid: true; timestamp: number } | { valid: false; reason: VerifyFailure };

export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

/** Header values longer than this are refused before any parsing work. */
const MAX_HEADER_LENGTH = 4096;
const V1_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Accepts when the header is well formed, `t` is within the tolerance of now
 * (stale or future timestamps are refused), and any `v1` matches any secret.
 * Comparisons are constant-time.
 */
export function verifyWebhookSignature(options: VerifyOptions): VerifyResult {
  const parsed = parseSignatureHeader(options.header);
  if (!parsed) return { valid: false, reason: 'malformed_header' };
  const tolerance = options.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) return { valid: false, reason: 'timestamp_outside_tolerance' };
  for (const secret of toList(options.secrets)) {
    const expected = Buffer.from(hmacHex(secret, parsed.timestamp, options.rawBody), 'hex');
    // Every candidate is compared (no early exit inside the loop over signatures) to keep timing flat.
    let matched = false;
    for (const signature of parsed.signatures) matched = timingSafeEqual(expected, signature) || matched;
    if (matched) return { valid: true, timestamp: parsed.timestamp };
  }
  return { valid: false, reason: 'no_matching_signature' };
}

interface ParsedHeader {
  timestamp: number;
  signatures: Buffer[];
}

/** `t=<digits>` exactly once and at least one well-formed `v1`; unknown schemes (v0, v2) are ignored. */
export function parseSignatureHeader(header: string | undefined | null): ParsedHeader | undefined {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_HEADER_LENGTH) return undefined;
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return undefined;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!V1_PATTERN.test(value)) return undefined;
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

function hmacHex(secret: string, timestamp: number, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

function toList(secrets: string | readonly string[]): readonly string[] {
  return typeof secrets === 'string' ? [secrets] : secrets;
}
