/** Flight windows print in the form they were submitted in: whole seconds as `...:00Z`, a submitted fraction kept. */
export function toUtcZ(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}
