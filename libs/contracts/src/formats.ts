/** A uuid as paths and bodies carry it (any version, either case). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * Every timestamp of the API and its webhooks is written as Laravel writes
 * records (`Y-m-d\TH:i:sP`): ISO 8601 in UTC with a numeric offset and whole
 * seconds, e.g. `2026-11-23T10:00:00+00:00`.
 */
export function toOffsetTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

export function toOffsetTimestampOrNull(date: Date | null | undefined): string | null {
  return date ? toOffsetTimestamp(date) : null;
}
