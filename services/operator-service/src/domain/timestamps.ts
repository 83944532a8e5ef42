/**
 * Records show times as Laravel does (`Y-m-d\TH:i:sP`): ISO 8601 in UTC with
 * a numeric offset and whole seconds, e.g. `2026-11-23T10:00:00+00:00`.
 */
export function toOffsetTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

export function toOffsetTimestampOrNull(date: Date | null | undefined): string | null {
  return date ? toOffsetTimestamp(date) : null;
}
