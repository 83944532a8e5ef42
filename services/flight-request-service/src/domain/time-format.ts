/**
 * Records show bookkeeping times as the operator record does (Laravel's
 * `Y-m-d\TH:i:sP`, whole seconds, `+00:00`) and flight windows in the form
 * they were submitted in (UTC with `Z`, e.g. `2026-12-01T10:00:00Z`).
 */
export function toOffsetTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

export function toOffsetTimestampOrNull(date: Date | null): string | null {
  return date ? toOffsetTimestamp(date) : null;
}

/** Whole seconds print as `...:00Z`; a submitted fraction of a second is kept. */
export function toUtcZ(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}
