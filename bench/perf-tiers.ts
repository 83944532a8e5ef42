import { readFileSync } from 'node:fs';

/**
 * Where a process's CPU time goes as the kernel samples it, from `perf record`
 * (cpu-clock, every thread, kernel included), which a V8 CPU profile cannot
 * say: a V8 profile samples the main thread's wall time, so time descheduled
 * inside a system call counts as that call's, and V8's own threads are left out.
 *
 *   BENCH_NODE_ARGS=--perf-basic-prof BENCH_COST_FLOWS=delivery npm run bench -- cost &
 *   perf record -e cpu-clock -F 1999 -g -p <pid> -o /tmp/perf.data -- sleep 15   # during the measured phase, as root
 *   perf script -i /tmp/perf.data > /tmp/perf.txt
 *   npx tsx bench/perf-tiers.ts /tmp/perf.txt
 *
 * Two tables: the sampled frame by kind (the kernel, the garbage collector,
 * V8's compilers, inline-cache and other builtins, JavaScript's own machine
 * code, the C library), and by the tier of the nearest JavaScript frame
 * (`--perf-basic-prof` marks code `~` interpreted, `^` Sparkplug, `+` Maglev,
 * `*` TurboFan): how much of the work runs on which compiler's code.
 */
const KINDS: Array<[kind: string, matches: (symbol: string, kernel: boolean) => boolean]> = [
  ['kernel', (_, kernel) => kernel],
  ['JavaScript machine code', (symbol) => symbol.startsWith('JS:')],
  ['garbage collector', (symbol) => /Scaveng|MarkCompact|Marking|Sweeper|Heap::|MinorGC|RememberedSet|Evacuat|SizeFromMap|RecordWrite|NeedsResetDueToFlushed|BodyDescriptorBase|ArrayBufferSweeper/.test(symbol)],
  ["V8's optimising compilers", (symbol) => /compiler::|maglev|Maglev|turboshaft/.test(symbol)],
  ['inline-cache builtins', (symbol) => symbol.startsWith('Builtins_') && /IC(_|$)|Megamorphic/.test(symbol)],
  ['other builtins', (symbol) => symbol.startsWith('Builtins_')],
  ['C library (malloc, memcpy)', (symbol) => /^(__)?(malloc|free|cfree|_int_|memmove|memcpy|memset|__memmove|__memcpy|__memset|malloc_consolidate)/.test(symbol)],
  ['V8 runtime and the rest of V8', (symbol) => symbol.startsWith('v8::')],
  ['node and libuv', (symbol) => symbol.startsWith('node::') || symbol.startsWith('uv_')],
];
const TIERS: Record<string, string> = { '~': 'interpreted', '^': 'Sparkplug', '+': 'Maglev', '*': 'TurboFan' };

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npx tsx bench/perf-tiers.ts <perf script output>\n');
  process.exit(2);
}
const kinds = new Map<string, number>();
const tiers = new Map<string, number>();
let samples = 0;
for (const sample of readFileSync(file, 'utf8').split('\n\n')) {
  const frames = sample.trim().split('\n').slice(1).map(parseFrame);
  const leaf = frames[0];
  if (!leaf) continue;
  samples++;
  const kind = KINDS.find(([, matches]) => matches(leaf.symbol, leaf.kernel))?.[0] ?? 'other';
  kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const nearestJs = frames.find((frame) => frame.symbol.startsWith('JS:'));
  const tier = nearestJs ? (TIERS[nearestJs.symbol.charAt(3)] ?? 'unknown tier') : 'no JavaScript frame (event loop, V8 threads)';
  tiers.set(tier, (tiers.get(tier) ?? 0) + 1);
}
const print = (title: string, counts: Map<string, number>) => {
  process.stdout.write(`${title}\n`);
  for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${((100 * count) / samples).toFixed(1).padStart(5)} %  ${name}\n`);
};
process.stdout.write(`${file}: ${samples} samples\n\n`);
print('sampled frame by kind:', kinds);
print('\ntier of the nearest JavaScript frame (its own code and the builtins, runtime and collections it called):', tiers);

/** One line of a `perf script` call chain: "<address> <symbol>+<offset> (<object>)". */
function parseFrame(line: string): { symbol: string; kernel: boolean } {
  const match = /^\s*[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\(([^)]*)\)\s*$/.exec(line);
  return { symbol: match?.[1] ?? '', kernel: match?.[2] === '[kernel.kallsyms]' };
}
