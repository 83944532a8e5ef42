import type { Logger } from './logger.js';

/** Background work a service repeats; stop() ends the repetition and waits for a round under way. */
export interface PeriodicJob {
  stop(): Promise<void>;
}

/**
 * Runs `work` every `intervalMs` (and once at the start with `immediately`),
 * never two rounds at once: a slow round skips the ticks it overlaps. A failed
 * round is logged as "`what` failed" and the next one tries again. stop()
 * waits for the round under way, so a service closes its database and broker
 * only after its sweeps let go of them.
 */
export function repeatEvery(what: string, intervalMs: number, work: () => Promise<unknown>, log: Logger, options: { immediately?: boolean } = {}): PeriodicJob {
  let running: Promise<unknown> | undefined;
  const round = () => {
    if (running) return;
    running = work()
      .catch((error: Error) => log.warn({ err: error.message }, `${what} failed`))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(round, intervalMs);
  timer.unref();
  if (options.immediately) round();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
