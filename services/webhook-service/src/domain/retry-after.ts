/**
 * `Retry-After` as RFC 9110 allows it: delay-seconds or an HTTP date.
 * Returns the wait in ms, or undefined when absent or unusable.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now.getTime());
}
