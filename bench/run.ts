import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { localStackRunning, pause, resume } from '../e2e/src/stack.js';

/**
 * Runs the benchmarks: every `bench/<name>.bench.ts` in turn, or only those
 * named on the command line (`npx tsx bench/run.ts gateway webhooks`; a name
 * may also be a file of bench/, e.g. `flight-requests.ts`). A benchmark module
 * default-exports an async function; it prints its own details as it goes and
 * may return `{ lines, goalsMet }` for the summary printed at the end. One
 * failing benchmark does not stop the others; the exit code is 1 if any threw.
 */
export interface BenchSummary {
  /** One line per figure, e.g. "throughput gateway/direct: 0.72 (goal >= 0.5)". */
  lines: string[];
  /** Whether every goal the benchmark checks was met. */
  goalsMet?: boolean;
}

type BenchFunction = () => Promise<BenchSummary | void>;

interface Outcome {
  name: string;
  seconds: number;
  summary?: BenchSummary;
  error?: string;
}

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SUFFIX = '.bench.ts';

async function main(names: string[]): Promise<number> {
  const files = names.length > 0 ? await namedFiles(names) : await allBenchFiles();
  if (files.length === 0) {
    process.stderr.write(`no benchmarks found in ${BENCH_DIR}\n`);
    return 1;
  }
  const outcomes: Outcome[] = [];
  // BENCH_NO_RESTART=1 leaves the database alone (a stack shared with others must not be restarted).
  const restartDatabase = process.env['BENCH_NO_RESTART'] !== '1' && (await localStackRunning());
  for (const file of files) {
    // FerretDB 1.x (SQLite) slows down over a long life of created and dropped
    // databases (measured: a find by _id took 130-350 ms after a test session,
    // 7 ms after a restart). Each benchmark gets a database server fresh from start.
    if (restartDatabase) await pause('database').then(() => resume('database'));
    outcomes.push(await runOne(file));
  }
  printSummary(outcomes);
  return outcomes.some((outcome) => outcome.error !== undefined) ? 1 : 0;
}

async function allBenchFiles(): Promise<string[]> {
  const entries = await readdir(BENCH_DIR);
  return entries.filter((entry) => entry.endsWith(SUFFIX)).sort();
}

async function namedFiles(names: string[]): Promise<string[]> {
  const entries = new Set(await readdir(BENCH_DIR));
  return names.map((name) => {
    const candidates = [name, `${name}${SUFFIX}`, `${name}.ts`];
    const found = candidates.find((candidate) => entries.has(candidate));
    if (found === undefined) throw new Error(`no benchmark named "${name}" in ${BENCH_DIR}`);
    return found;
  });
}

async function runOne(file: string): Promise<Outcome> {
  const name = file.replace(/\.bench\.ts$|\.ts$/, '');
  process.stdout.write(`\n=== ${name} ===\n`);
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  try {
    const module = (await import(pathToFileURL(join(BENCH_DIR, file)).href)) as { default?: unknown };
    if (typeof module.default !== 'function') throw new Error(`${file} has no default-exported function`);
    const summary = (await (module.default as BenchFunction)()) ?? undefined;
    return { name, seconds: seconds(), ...(summary ? { summary } : {}) };
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${name} failed: ${message}\n`);
    return { name, seconds: seconds(), error: error instanceof Error ? error.message : String(error) };
  }
}

function printSummary(outcomes: Outcome[]): void {
  process.stdout.write('\n=== summary ===\n');
  for (const outcome of outcomes) {
    const verdict =
      outcome.error !== undefined
        ? `FAILED: ${outcome.error}`
        : outcome.summary?.goalsMet === undefined
          ? 'done'
          : outcome.summary.goalsMet
            ? 'goals met'
            : 'GOALS MISSED';
    process.stdout.write(`${outcome.name} (${outcome.seconds} s): ${verdict}\n`);
    for (const line of outcome.summary?.lines ?? []) process.stdout.write(`  ${line}\n`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
