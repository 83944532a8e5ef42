/**
 * An endpoint is disabled when every attempt since `failingSince` (the first
 * failure after its last success) has failed for longer than the limit.
 */
export function hasFailedTooLong(failingSince: Date | null, now: Date, disableAfterMs: number): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= disableAfterMs;
}

export const DISABLED_REASONS = {
  gone: 'The endpoint answered 410 Gone.',
  failing: (days: number) => `Every delivery failed for ${days} days.`,
  byOwner: 'Disabled through the API.',
} as const;

export function failingReason(disableAfterMs: number): string {
  const days = Math.round((disableAfterMs / 86_400_000) * 100) / 100;
  return DISABLED_REASONS.failing(days);
}
