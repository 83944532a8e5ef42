/**
 * When to try again. The schedule lists the delays before the 2nd, 3rd, …
 * attempt (the PRODUCT default spreads 8 attempts over about a day). Each
 * delay is moved by up to ±20 % so that deliveries which failed together
 * (a receiver's outage) do not all come back in the same second.
 */
export const RETRY_JITTER = 0.2;

export type Random = () => number;

export function parseRetrySchedule(text: string): number[] {
  const delays = text.split(',').map((part) => Number(part.trim()));
  if (delays.length === 0 || delays.some((delay) => !Number.isSafeInteger(delay) || delay < 0)) {
    throw new Error(`Invalid retry schedule: "${text}"`);
  }
  return delays;
}

/**
 * The delay after the `attemptsMade`-th failed attempt of the current round
 * (1 = the first attempt just failed), or undefined when the schedule is
 * exhausted and the delivery is to be marked failed.
 */
export function nextRetryDelay(schedule: readonly number[], attemptsMade: number, random: Random = Math.random): number | undefined {
  const base = schedule[attemptsMade - 1];
  return base === undefined ? undefined : withJitter(base, random);
}

/**
 * The factor is one of 21 steps from 0.80 to 1.20: each step is a delay
 * queue on the broker with its own fixed TTL (see domain/delay-queues.ts),
 * so messages leave it in arrival order at exactly their delay.
 */
export const JITTER_STEPS = 20;

export function withJitter(delayMs: number, random: Random = Math.random): number {
  const step = Math.min(JITTER_STEPS, Math.floor(random() * (JITTER_STEPS + 1)));
  const factor = 1 - RETRY_JITTER + (2 * RETRY_JITTER * step) / JITTER_STEPS;
  return Math.max(0, Math.round(delayMs * factor));
}
