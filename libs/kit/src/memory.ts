import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One compacting garbage collection, once a service has started. Start-up
 * (some 400 modules compiled, the contract schemas built and compiled,
 * connections made) leaves 15–25 MiB of garbage that V8 collects only when
 * the old space first reaches its limit, which a quiet replica may never do:
 * 105–121 MiB of RSS per idle service on Node 24 without this, 81–96 MiB with
 * it (docs/performance.md, item 26). It costs about 0.2 s of CPU, once.
 *
 * `gc` is taken from a fresh context with `--expose-gc` set for that moment
 * only, not from the command line: no other code in the process gets a
 * global `gc` to call.
 */
export function collectStartUpGarbage(): { before: number; after: number } {
  const before = process.memoryUsage().heapUsed;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options?: Record<string, string>) => void;
  setFlagsFromString('--no-expose-gc');
  // Two collections. V8's "last resort" one (src/extensions/gc-extension.h) hands the freed pages back to the
  // system; a plain one on Node 24 (the image) leaves nearly all of them resident (117 → 111 MiB in a test
  // holding 60 MiB of garbage, against 117 → 57). Node 20's V8 ignores that option, so the plain one is what
  // collects there; on Node 24 it is not wasted: the second collection of either kind frees 3 MiB more of
  // flight-request-service (89 against 92 MiB), for 70–110 ms of CPU each.
  gc();
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return { before, after: process.memoryUsage().heapUsed };
}
