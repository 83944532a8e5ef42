import type { Logger } from '@dfc/kit/logging';

/** Runs `sweep` every `intervalMs` (never two at once); failures are logged and the next round tries again. */
export function startSweep(sweep: () => Promise<unknown>, intervalMs: number, log: Logger): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .catch((error: Error) => log.warn({ err: error.message }, 'lost-delivery sweep failed'))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
