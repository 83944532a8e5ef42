import { readFileSync } from 'node:fs';
import { GatewayClient } from '../e2e/src/client.js';
import { startSystem, type ServiceName, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import { round } from './support.js';

/**
 * Memory per request under the worst bodies: each route's costliest body, at a
 * concurrency that used to exhaust a heap, while every process's heap in use (its /metrics) and
 * RSS (/proc) are sampled. A body of empty objects is the costliest JSON per byte. Every process
 * runs with the image's heap limit, so the figures compare with production's.
 *
 * Goal: no process above 70 % of its heap limit, none restarted. Not a timed test: the statuses
 * are reported (403, 413, 503 are the expected refusals), not asserted.
 */
const HEAP_LIMIT_MIB = Number(process.env['BENCH_HEAP_LIMIT_MIB'] ?? 256);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const GOAL_HEAP_SHARE = 0.7;
const SAMPLE_MS = 100;
const MIB = 1024 * 1024;
const SERVICES: ServiceName[] = ['gateway', 'operator-service', 'flight-request-service', 'webhook-service'];

/** `{"features":[{},{},…]}` of about `bytes`: what costs a JSON parser most heap per byte. */
function emptyObjects(bytes: number, head = '{"type":"FeatureCollection","features":['): string {
  return `${head}${Array.from({ length: Math.floor(bytes / 3) }, () => '{}').join(',')}]}`;
}

interface Load {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  concurrency: number;
}

interface Peak {
  heapMiB: number;
  rssMiB: number;
}

export default async function memoryBench(): Promise<BenchSummary> {
  const nodeArgs = Object.fromEntries(SERVICES.map((service) => [service, [`--max-old-space-size=${HEAP_LIMIT_MIB}`]]));
  const system = await startSystem({
    compiled: process.env['BENCH_COMPILED'] !== '0',
    nodeArgs,
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' },
  });
  try {
    const operator = await new GatewayClient(system.gatewayUrl).registerOperatorWithKey();
    const json = { 'content-type': 'application/json' };
    const loads: Load[] = [
      {
        name: 'zone import, operator key, 3 MiB',
        path: '/api/zones/import',
        headers: { ...json, 'x-api-key': operator.key },
        body: emptyObjects(3 * MIB),
        concurrency: 8,
      },
      {
        name: 'zone import, admin key, 2 MiB',
        path: '/api/zones/import',
        headers: { ...json, 'x-api-key': system.adminKey },
        body: emptyObjects(2 * MIB),
        concurrency: 4,
      },
      {
        name: 'registration, anonymous, just under 1 MiB',
        path: '/api/operators',
        headers: json,
        body: emptyObjects(MIB - 1024, '{"company_name":['),
        concurrency: 16,
      },
      {
        name: 'submission, operator key, just under 1 MiB',
        path: '/api/flight-requests',
        headers: { ...json, 'x-api-key': operator.key },
        body: emptyObjects(MIB - 1024, '{"flight_area":['),
        concurrency: 16,
      },
    ];
    const lines: string[] = [];
    let goalsMet = true;
    const pids = Object.fromEntries(SERVICES.map((service) => [service, system.pid(service)]));
    for (const load of loads) {
      const { statuses, peaks } = await run(system, load);
      lines.push(
        `${load.name} ×${load.concurrency}, ${SECONDS} s: ${Object.entries(statuses)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
      );
      for (const service of SERVICES) {
        const peak = peaks[service]!;
        const share = peak.heapMiB / HEAP_LIMIT_MIB;
        const restarted = system.pid(service) !== pids[service];
        if (share > GOAL_HEAP_SHARE || restarted) goalsMet = false;
        lines.push(
          `  ${service}: peak heap ${peak.heapMiB} MiB (${round(share * 100, 0)} % of ${HEAP_LIMIT_MIB}), peak RSS ${peak.rssMiB} MiB${restarted ? ', RESTARTED' : ''}`,
        );
      }
    }
    for (const line of lines) process.stdout.write(`[memory] ${line}\n`);
    return { lines: [...lines, `goal: every process under ${GOAL_HEAP_SHARE * 100} % of its heap limit, none restarted`], goalsMet };
  } finally {
    await system.stop();
  }
}

async function run(system: System, load: Load): Promise<{ statuses: Record<string, number>; peaks: Record<string, Peak> }> {
  const statuses: Record<string, number> = {};
  const peaks = Object.fromEntries(SERVICES.map((service) => [service, { heapMiB: 0, rssMiB: 0 }])) as Record<string, Peak>;
  const until = Date.now() + SECONDS * 1000;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await Promise.all(SERVICES.map(async (service) => sample(system, service, peaks[service]!)));
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  const worker = async () => {
    while (Date.now() < until) {
      const status = await fetch(`${system.gatewayUrl}${load.path}`, { method: 'POST', headers: load.headers, body: load.body }).then(
        async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        },
        (error: Error) => error.name,
      );
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: load.concurrency }, worker));
  sampling = false;
  await sampler;
  return { statuses, peaks };
}

async function sample(system: System, service: ServiceName, peak: Peak): Promise<void> {
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${system.pid(service)}/status`, 'utf8'))?.[1];
    if (rss !== undefined) peak.rssMiB = Math.max(peak.rssMiB, round(Number(rss) / 1024, 1));
    const text = await (await fetch(system.metricsUrl(service), { signal: AbortSignal.timeout(2_000) })).text();
    const heap = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    if (heap !== undefined) peak.heapMiB = Math.max(peak.heapMiB, round(Number(heap) / MIB, 1));
  } catch {
    // A process busy beyond the sample's wait is measured at the next sample.
  }
}
