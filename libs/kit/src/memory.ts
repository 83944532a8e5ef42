import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Histogram, type Registry } from 'prom-client';
import type { Logger } from './logger.js';

/** The heap in use before and after a compaction, in bytes, and how long the process stood still for it. */
export interface HeapCompacted {
  before: number;
  after: number;
  pauseMs: number;
}

/**
 * One compacting garbage collection, which hands the freed pages back to the system. A service runs one
 * once it has started (runService): start-up (some 400 modules compiled, the contract schemas built and
 * compiled, connections made) leaves 15–25 MiB of garbage that V8 collects only when the old space first
 * reaches its limit, which a quiet replica may never do: 105–121 MiB of RSS per idle service on Node 24
 * without it, 81–96 MiB with it (docs/performance.md, item 26). It takes about 0.2 s of CPU on a heap of
 * that size (two collections, below), during which the process does nothing else.
 *
 * `gc` is taken from a fresh context with `--expose-gc` set for that moment only, not from the command
 * line: no other code in the process gets a global `gc` to call.
 */
export function compactHeap(): HeapCompacted {
  const started = performance.now();
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
  return { before, after: process.memoryUsage().heapUsed, pauseMs: performance.now() - started };
}

export interface HeapCompactionOptions {
  log: Logger;
  registry?: Registry;
  /** How long after the last piece of bulk work has ended the compaction runs (default 250 ms). */
  delayMs?: number;
}

/**
 * A compaction a moment after bulk work that is rare and leaves much behind (flight-request-service's zone
 * import: the parsed body, the written documents, a young generation grown to its limit). V8's memory
 * reducer gives that memory back on its own, but only 15–25 s later, when it sees the process quiet; until
 * then the replica holds the peak (docs/performance.md, item 42). Work that overlaps, or follows within
 * `delayMs` (a script importing in chunks), is followed by one compaction: none runs while any is going on.
 */
export class HeapCompaction {
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private readonly pauses: Histogram<'after'> | undefined;

  constructor(private readonly options: HeapCompactionOptions) {
    if (options.registry) {
      this.pauses = new Histogram({
        name: 'heap_compaction_pause_seconds',
        help: 'Time the process stood still for a heap compaction after bulk work, by the work',
        labelNames: ['after'] as const,
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5],
        registers: [options.registry],
      });
    }
  }

  /** Runs `task`, bulk work named by `work` ("zone import"), and compacts the heap a moment after it, whether it succeeded or not. */
  async after<T>(work: string, task: () => Promise<T>): Promise<T> {
    this.cancel();
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      if (this.running === 0) {
        this.timer = setTimeout(() => this.compact(work), this.options.delayMs ?? 250);
        this.timer.unref();
      }
    }
  }

  /** Drops a pending compaction (shutdown). */
  stop(): void {
    this.cancel();
  }

  private cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private compact(work: string): void {
    this.timer = undefined;
    const heap = compactHeap();
    this.pauses?.observe({ after: work }, heap.pauseMs / 1000);
    this.options.log.info(
      { after: work, heap_used_before_mib: mib(heap.before), heap_used_after_mib: mib(heap.after), pause_ms: Math.round(heap.pauseMs) },
      'heap compacted',
    );
  }
}

/** Bytes in MiB, to a tenth. */
export function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}
