/**
 * What a subscriber does with `status_change` webhooks and signed
 * authorisations, beyond verifying the webhook signature:
 *
 * - orders each flight request's changes by `sequence` (1, 2, 3, … per
 *   request, one per status-history entry): a delivery that arrives early
 *   waits for the ones before it, and a gap that stays open is reported so
 *   the subscriber can read the request (`GET /api/v1/flight-requests/{uuid}`);
 * - treats `Rescinded` as final: a new restriction (e.g. a temporary
 *   prohibited zone) withdrew the approval, so the flight must not go ahead;
 * - verifies an authorisation token offline with nothing but the gateway's
 *   public keys, and asks whether it still stands.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export interface StatusChange {
  flight_request_uuid: string;
  status: string;
  previous_status: string | null;
  reason: string | null;
  sequence: number;
}

export class FlightStatusTracker {
  /** The last sequence applied per request. */
  private readonly applied = new Map<string, number>();
  /** Deliveries that arrived before the ones they follow. */
  private readonly waiting = new Map<string, Map<number, StatusChange>>();

  constructor(private readonly apply: (change: StatusChange) => void) {}

  /** Applies the change and any waiting ones it unblocks, in order; an already-applied sequence is ignored. */
  accept(change: StatusChange): void {
    const uuid = change.flight_request_uuid;
    const last = this.applied.get(uuid) ?? 0;
    if (change.sequence <= last) return;
    const waiting = this.waiting.get(uuid) ?? new Map<number, StatusChange>();
    waiting.set(change.sequence, change);
    this.waiting.set(uuid, waiting);
    for (let next = last + 1; waiting.has(next); next += 1) {
      this.apply(waiting.get(next) as StatusChange);
      waiting.delete(next);
      this.applied.set(uuid, next);
    }
    if (waiting.size === 0) this.waiting.delete(uuid);
  }

  /** Requests with a gap (a later change arrived, an earlier one not yet): read them to catch up. */
  gaps(): Array<{ flight_request_uuid: string; missing_from: number }> {
    return [...this.waiting.keys()].map((uuid) => ({ flight_request_uuid: uuid, missing_from: (this.applied.get(uuid) ?? 0) + 1 }));
  }
}

/** A status change the operator must act on: the approval was withdrawn by a new restriction. */
export function isRescission(change: StatusChange): boolean {
  return change.status === 'Rescinded';
}

export interface CheckedAuthorisation {
  claims: JWTPayload & Record<string, unknown>;
  /** valid | revoked | expired, from the public status route. */
  status: string;
}

/**
 * What a police officer's or an airport's app does with a token: verify the
 * signature with the gateway's JWKS (cached; fetched again for an unknown
 * `kid`), then ask whether the authorisation still stands.
 */
export async function checkAuthorisation(token: string, gatewayUrl: string): Promise<CheckedAuthorisation> {
  const keys = createRemoteJWKSet(new URL('/.well-known/jwks.json', gatewayUrl));
  const { payload } = await jwtVerify(token, keys, {
    issuer: 'dfc-flight-request-service',
    typ: 'dfc-authorisation+jwt',
    algorithms: ['EdDSA'],
  });
  const answer = await fetch(new URL(`/api/v1/authorisations/${encodeURIComponent(String(payload.jti))}`, gatewayUrl));
  const body = (await answer.json()) as { data?: { status: string } };
  return { claims: payload, status: body.data?.status ?? `unknown (HTTP ${answer.status})` };
}
