/** A timestamp as the console shows it everywhere: in UTC, day and minute (`3 Dec 2026, 10:00 UTC`). */
export function when(date: string | null): string {
  return date === null ? '' : new Date(date).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC';
}

/** A `datetime-local` value, read as UTC (the labels say so), in the spec's `…Z` form; empty stays empty. */
export function toUtc(local: string): string {
  return local === '' ? '' : `${local.length === 16 ? `${local}:00` : local}Z`;
}

/** A date as a `datetime-local` value in UTC, to the minute. */
export function inputValue(date: Date): string {
  return date.toISOString().slice(0, 16);
}
