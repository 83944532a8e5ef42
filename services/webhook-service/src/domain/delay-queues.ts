/**
 * Scheduled attempts wait on the broker, in delay queues whose TTL is the
 * delay; an expired message is dead-lettered back to the work queue. One
 * queue per distinct delay keeps them exact (a queue with one TTL releases
 * its messages in arrival order): the retry schedule's jittered delays take
 * 21 values per step (see withJitter), and free-form waits (Retry-After,
 * cool-off, a busy endpoint) are rounded UP to two significant digits, so a
 * receiver is never called earlier than it asked, and the queues stay few.
 */
export function freeFormDelay(delayMs: number): number {
  if (delayMs <= 0) return 0;
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(delayMs)) - 1);
  return Math.ceil(delayMs / magnitude) * magnitude;
}

/** A busy endpoint's message first waits this long on the broker, twice as long each time it finds the endpoint busy again… */
const BUSY_WAIT_FIRST_MS = 500;
/** …up to this. */
const BUSY_WAIT_MAX_MS = 32_000;

/**
 * How long a message that found its endpoint busy for the `busyWaits`-th time in a row (0 the
 * first) waits before it is tried again: exponential back-off, so a slow endpoint's backlog is
 * tried less and less often while it stays busy instead of bouncing every second. Powers of two
 * of the first wait, so they take seven delay queues in all.
 */
export function busyWait(busyWaits: number): number {
  return Math.min(BUSY_WAIT_MAX_MS, BUSY_WAIT_FIRST_MS * 2 ** Math.min(busyWaits, 16));
}
