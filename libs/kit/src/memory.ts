import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One compacting garbage collection, once a service has started. Start-up
 * (some 400 modules compiled, the contract schemas built and compiled,
 * connections made) leaves 15–25 MiB of garbage that V8 collects only when
 * the old space first reaches its limit, which a quiet replica may never do:
 * 105–121 MiB of RSS per idle service on Node 24 without this, 81–96 MiB with
 * it (docs/performance.md, item 26). It takes some tens of milliseconds, once.
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
  // Both, for the two Node lines we run: on Node 24 (the image) a plain collection leaves nearly all the freed
  // pages resident (117 → 111 MiB in a test holding 60 MiB of garbage) and V8's "last resort" one
  // (src/extensions/gc-extension.h) hands them back (117 → 57); Node 20's V8 knows no such option and, given
  // options at all, frees a fraction of what its plain collection does.
  gc();
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return { before, after: process.memoryUsage().heapUsed };
}
