import autocannon from 'autocannon';

/**
 * Runs autocannon against `target` for `seconds` with `connections`; each
 * response's exact time (ms, fractional) goes to `onResponse`, since
 * autocannon's own histogram only resolves whole milliseconds.
 */
export function load(
  target: autocannon.Options,
  connections: number,
  seconds: number,
  onResponse?: (responseTime: number) => void,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...target, connections, duration: seconds }, (error, result) => (error ? reject(error) : resolve(result)));
    if (onResponse) instance.on('response', (_client, _status, _bytes, responseTime) => onResponse(responseTime));
  });
}

export interface Measured {
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

/** Seconds of load before each measurement, so connections and JIT are warm. */
const WARMUP_SECONDS = 2;

/**
 * Throughput and latency of one target under `connections`, after a warm-up.
 * Any non-2xx answer or error makes the figure meaningless, so it throws.
 */
export async function measure(bench: string, label: string, target: autocannon.Options, connections: number, seconds: number): Promise<Measured> {
  await load(target, connections, WARMUP_SECONDS);
  const times: number[] = [];
  const result = await load(target, connections, seconds, (responseTime) => times.push(responseTime));
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors out of ${result.requests.total}`);
  }
  times.sort((a, b) => a - b);
  const measured = { requestsPerSecond: result.requests.total / seconds, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
  process.stdout.write(
    `${bench}: ${label}: ${round(measured.requestsPerSecond, 0)} req/s, p50 ${round(measured.p50)} ms, p99 ${round(measured.p99)} ms (${result.requests.total} requests)\n`,
  );
  return measured;
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
