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
