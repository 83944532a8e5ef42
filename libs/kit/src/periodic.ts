import type { Logger } from './logger.js';

/** Background work a service repeats; stop() ends the repetition and waits for a round under way. */
export interface PeriodicJob {
  stop(): Promise<void>;
  /** The pace may have changed (an interval given as a function): the next round is planned by it again. */
  paceChanged(): void;
}

/**
 * Runs `work` every `intervalMs` (and once at the start with `immediately`),
 * never two rounds at once: a slow round skips the ticks it overlaps. A failed
 * round is logged as "`what` failed" and the next one tries again. stop()
 * waits for the round under way, so a service closes its database and broker
 * only after its sweeps let go of them. An interval given as a function is
 * asked again for each round, counted from when the last round started.
 */
export function repeatEvery(
  what: string,
  intervalMs: number | (() => number),
  work: () => Promise<unknown>,
  log: Logger,
  options: { immediately?: boolean } = {},
): PeriodicJob {
  const interval = typeof intervalMs === 'number' ? () => intervalMs : intervalMs;
  let running: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastStart = performance.now();
  const plan = () => {
    clearTimeout(timer);
    if (stopped || running) return;
    const every = interval();
    timer = setTimeout(round, every - ((performance.now() - lastStart) % every));
    timer.unref();
  };
  const round = () => {
    if (running || stopped) return;
    lastStart = performance.now();
    running = work()
      .catch((error: Error) => log.warn({ err: error.message }, `${what} failed`))
      .finally(() => {
        running = undefined;
        plan();
      });
  };
  if (options.immediately) round();
  else plan();
  return {
    paceChanged: plan,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
