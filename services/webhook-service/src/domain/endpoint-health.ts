/**
 * Endpoint health, as Svix does it: consecutive failures (timeouts included)
 * put the endpoint in a cool-off during which its deliveries wait instead of
 * hammering it; the first attempt after the cool-off is the probe (one more
 * failure cools it off again, a success ends the streak); 410 disables it at
 * once; a failing streak as long as `disableAfterMs` disables it.
 */
export interface HealthPolicy {
  coolOffAfterFailures: number;
  coolOffMs: number;
  disableAfterMs: number;
}

export interface EndpointHealth {
  enabled: boolean;
  disabled_reason: string | null;
  /** Failed attempts since the last success. */
  consecutive_failures: number;
  /** The first failed attempt since the last success; null while healthy. */
  failing_since: Date | null;
  /** Deliveries wait until then. */
  cooling_until: Date | null;
}

export type AttemptVerdict = 'succeeded' | 'failed' | 'gone';

export const DISABLED_REASONS = {
  gone: 'The endpoint answered 410 Gone.',
  failing: (days: number) => `Every delivery failed for ${days} days.`,
  byOwner: 'Disabled through the API.',
} as const;

export function failingReason(disableAfterMs: number): string {
  const days = Math.round((disableAfterMs / 86_400_000) * 100) / 100;
  return DISABLED_REASONS.failing(days);
}

/** The health after one attempt; null when nothing changes (a success on a healthy endpoint, the usual case). */
export function healthAfterAttempt(health: EndpointHealth, verdict: AttemptVerdict, now: Date, policy: HealthPolicy): Partial<EndpointHealth> | null {
  if (verdict === 'succeeded') {
    const healthy = health.consecutive_failures === 0 && health.failing_since === null && health.cooling_until === null;
    return healthy ? null : { consecutive_failures: 0, failing_since: null, cooling_until: null };
  }
  if (!health.enabled) return null;
  if (verdict === 'gone') return { enabled: false, disabled_reason: DISABLED_REASONS.gone, cooling_until: null };
  const failingSince = health.failing_since ?? now;
  const failures = health.consecutive_failures + 1;
  if (now.getTime() - failingSince.getTime() >= policy.disableAfterMs) {
    return {
      enabled: false,
      disabled_reason: failingReason(policy.disableAfterMs),
      consecutive_failures: failures,
      failing_since: failingSince,
      cooling_until: null,
    };
  }
  const cooling = failures >= policy.coolOffAfterFailures ? new Date(now.getTime() + policy.coolOffMs) : health.cooling_until;
  return { consecutive_failures: failures, failing_since: failingSince, cooling_until: cooling };
}

/** Re-enabling forgets the streak: the 5-day clock starts afresh, and nothing that failed meanwhile is replayed. */
export function healthWhenEnabled(): Partial<EndpointHealth> {
  return { enabled: true, disabled_reason: null, consecutive_failures: 0, failing_since: null, cooling_until: null };
}

export function coolingUntil(health: Pick<EndpointHealth, 'cooling_until'>, now: Date): Date | null {
  return health.cooling_until && health.cooling_until.getTime() > now.getTime() ? health.cooling_until : null;
}
