import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { INTERNAL_TOKEN_TTL_SECONDS, InternalTokenSigner } from '@dfc/kit/http';
import { openResources } from '@dfc/kit/service';
import { boxRing, newEvent, RoutingKeys, type Principal } from '@dfc/contracts';
import { connect } from 'amqplib';
import mongoose from 'mongoose';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../e2e/src/client.js';
import { entryPoint, startSystem, type ServiceName, type System } from '../e2e/src/system.js';
import { loadWebhookConfig } from '../services/webhook-service/src/config.js';
import { createWebhookService } from '../services/webhook-service/src/service.js';
import {
  costPerUnit,
  engineGroups,
  peakRssMiB,
  resetPeakRss,
  rssMiB,
  serviceGroup,
  untilQuiet,
  type CostPerUnit,
  type ProcessGroup,
} from './accounting.js';
import type { BenchSummary } from './run.js';
import { describeTraffic, STEADY_RATES, steadyTraffic } from './steady-traffic.js';
import {
  CommandTally,
  commandsBetween,
  freePort,
  load,
  round,
  startReceiver,
  statusData,
  withCommandMonitoring,
  type BenchReceiver,
} from './support.js';

/**
 * What a unit of work costs, in CPU time each process spent on it as the
 * kernel accounts it (/proc/<pid>/stat), over a phase of PHASE_SECONDS (>= 20 s)
 * per flow, on the compiled services as the image runs them. Wall-clock
 * throughput on a shared two-core machine says how busy the machine was; CPU
 * per unit says what the code costs, and stays true on another engine.
 *
 * Flows: proxied read (GET /api/operators/{uuid} through the gateway, then
 * through a bare proxy, bench/bare-proxy.ts, for the same-run baseline),
 * submission without screening (an area no zone touches) and with it (1,000
 * zones loaded, the area inside five of them), list (the operator's first
 * page), cancel, webhook delivery (status_change events published on the
 * broker, fanned out to two endpoints, POSTed to a receiver here; then taken
 * by a bare deliverer, bench/bare-deliverer.ts, for the same-run baseline),
 * and the proxied read again with an upstream that answers at once
 * (bench/recorded-upstream.ts), the gateway's cost when the engine does not
 * set the pace, beside the bare proxy's in front of the same. Processes: the
 * services, the gateway, the database engine (FerretDB + PostgreSQL, or
 * mongod) and the broker (RabbitMQ's Erlang VM). The engines are shared with
 * whoever else uses the machine, so their figures include that load. The
 * delivery and read phases (and their baselines) come after WARM_UP_SECONDS of
 * the same load, so they measure a replica that has compiled its hot paths.
 * Every phase starts once the services and the engines have gone quiet
 * (QUIET_MS_PER_SECOND), so it does not share the cores with the work an
 * earlier flow left behind; the log says how long each one waited.
 *
 * Database commands per delivery: webhook-service hosted in this process for
 * the count, its connection's commands counted by the driver's command
 * monitoring.
 *
 * Memory: each service's RSS idle (started, nothing done), after the README
 * walkthrough (scripts/walkthrough.ts), and after STEADY_SECONDS of a steady
 * mixed load (reads, submissions and deliveries at fixed rates, lists), its
 * RSS sampled during it; the goal holds for both readings. The largest
 * request: a zone import at the services' limits (LARGE_IMPORT, just under the
 * 16 MiB body limit), each service's peak RSS from the request until
 * SETTLE_SECONDS after its answer, and the RSS then.
 *
 * BENCH_COST_FLOWS=delivery,read,read-at-once,submission,list,cancel,import,steady (any of them, or
 * `none` for the walkthrough's memory figures alone): the flows to run, all by default; for trying
 * one change against one figure without waiting for the others.
 *
 * BENCH_STEADY_SECONDS=<s>: how long the steady load runs (600 by default).
 *
 * BENCH_WARM_UP_SECONDS=<s>: the warm-up before the delivery and read phases (15 by default).
 *
 * NODE_OPTIONS reaches the services and the bare baselines, so Node's own profilers need no
 * helper here: NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" (or --heap-prof) writes a
 * profile per process when it stops, for Chrome DevTools or any V8 profile viewer.
 */
const PHASE_SECONDS = Math.max(20, Number(process.env['BENCH_PHASE_SECONDS'] ?? 20));
/**
 * The same load, unmeasured, before the delivery and read phases: V8 compiles a hot function with its optimising
 * compiler only after many calls, so a phase that started cold measured its first seconds on the lower tiers'
 * code and the compilations themselves, which a replica pays once in its life.
 */
const WARM_UP_SECONDS = Number(process.env['BENCH_WARM_UP_SECONDS'] ?? 15);
const STEADY_SECONDS = Number(process.env['BENCH_STEADY_SECONDS'] ?? 600);
const RSS_SAMPLE_SECONDS = 5;
/** Deliveries whose database commands are counted: long enough for the batching of answers that end together to show. */
const COUNTED_SECONDS = 10;
const CONNECTIONS = 8;
/** A list reads every document of the operator on the local engine: one per core at a time, so that none waits past the query limit (503). */
const LIST_CONNECTIONS = 2;
/**
 * A phase (and its warm-up) starts once the services and the engines together spend under this much CPU in a
 * second (`untilQuiet`), waiting QUIET_LIMIT_SECONDS at most: the services' timers and the engine's upkeep stay
 * under it, the rescreening a zone import starts does not.
 */
const QUIET_MS_PER_SECOND = 150;
const QUIET_LIMIT_SECONDS = 300;
const ZONES = 1000;
/** Zones per import call: small enough that a loaded engine answers each within the gateway's upstream timeout. */
const IMPORT_CHUNK = 100;
/** The largest zone import the services take: 500 zones of 1,400 vertices are 14.6 MB of JSON, under the 16 MiB body limit. */
const LARGE_IMPORT = { zones: 500, vertices: 1400 } as const;
/** The services the import's body passes through. */
const IMPORT_SERVICES: ServiceName[] = ['gateway', 'flight-request-service'];
const WEBHOOK_ENDPOINTS = 2;
/** How long after the large import its settled RSS is read: past V8's memory reducer's delay. */
const SETTLE_SECONDS = 15;
/** Deliveries in flight at most during the delivery phase, so the phase ends soon after the publishing does. */
const WEBHOOK_BACKLOG = 200;
/** docs/performance.md, "Goals", says where each comes from; the RSS goal holds after the walkthrough and after the steady load. */
const GOALS = { webhookMsPerDelivery: 0.6, commandsPerDelivery: 3, gatewayMsPerRead: 0.15, rssMiB: 160 } as const;
const SERVICES: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service', 'gateway'];
const FLOWS = ['delivery', 'read', 'read-at-once', 'submission', 'list', 'cancel', 'import', 'steady'] as const;
const selected = new Set((process.env['BENCH_COST_FLOWS'] ?? FLOWS.join(',')).split(',').map((flow) => flow.trim()));
const runs = (flow: (typeof FLOWS)[number]) => selected.has(flow);
const LOG = (line: string) => process.stdout.write(`cost: ${line}\n`);
const verdict = (ok: boolean) => (ok ? '✔' : '✘');
/** webhook-service's settings, for its child process and for the copy hosted here to count commands. */
const WEBHOOK_ENV = {
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '4',
  WEBHOOK_MAX_IN_FLIGHT: '64',
} as const;
const LOG_LEVEL = process.env['BENCH_LOG_LEVEL'] ?? 'warn';
/** Node's own options (a profiler, say) for every process the bench measures. */
const NODE_OPTIONS: Record<string, string> = process.env['NODE_OPTIONS'] ? { NODE_OPTIONS: process.env['NODE_OPTIONS'] } : {};

export default async function costBench(): Promise<BenchSummary> {
  const receiver = await startReceiver();
  const system = await startSystem({
    compiled: true,
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL, ...NODE_OPTIONS },
    serviceEnv: { 'webhook-service': WEBHOOK_ENV },
  });
  const lines: string[] = [];
  let goalsMet = true;
  const add = (line: string, ok?: boolean) => {
    const text = ok === undefined ? `${line} (reported)` : `${line} ${verdict(ok)}`;
    lines.push(text);
    LOG(text);
    if (ok === false) goalsMet = false;
  };
  const group = (name: ServiceName) => serviceGroup(name, () => system.pid(name));
  try {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const idle = memory(system);
    await walkthrough(system);
    const walked = memory(system);
    for (const name of SERVICES) {
      add(`${name} RSS idle ${round(idle.get(name) ?? 0, 0)} MiB`);
      add(
        `${name} RSS after the README walkthrough ${round(walked.get(name) ?? 0, 0)} MiB (goal <= ${GOALS.rssMiB})`,
        (walked.get(name) ?? Infinity) <= GOALS.rssMiB,
      );
    }

    const client = new GatewayClient(system.gatewayUrl);
    const operator = await client.registerOperatorWithKey({ timezone: 'Europe/Amsterdam' });
    await waitUntilKnown(client, operator);
    const engines = engineGroups();
    const report = (flow: string, unit: string, cost: CostPerUnit) => {
      LOG(`${flow}: ${cost.units} × ${unit} in ${round(cost.seconds, 1)} s`);
      for (const [name, ms] of cost.msPerUnit) {
        if (name === 'gateway' && flow === 'proxied read')
          add(`${flow}: gateway ${round(ms, 3)} ms CPU per ${unit} (goal <= ${GOALS.gatewayMsPerRead})`, ms <= GOALS.gatewayMsPerRead);
        else if (name === 'webhook-service')
          add(
            `${flow}: webhook-service ${round(ms, 3)} ms CPU per ${unit} (goal <= ${GOALS.webhookMsPerDelivery})`,
            ms <= GOALS.webhookMsPerDelivery,
          );
        else add(`${flow}: ${name} ${round(ms, 3)} ms CPU per ${unit}`);
      }
    };
    const through = (...services: ServiceName[]): ProcessGroup[] => [...services.map(group), ...engines];
    const quietBefore = async (flow: string, baseline: ProcessGroup[] = []) => {
      const waited = await untilQuiet([...SERVICES.map(group), ...baseline, ...engines], QUIET_MS_PER_SECOND, QUIET_LIMIT_SECONDS);
      LOG(`${flow}: started after ${round(waited.seconds, 0)} s, the system then at ${round(waited.msPerSecond, 0)} ms of CPU a second`);
    };

    const run: RunReporting = { group, add, quietBefore, report, engines };
    if (runs('delivery')) {
      const publisher = await serviceEvents(system, receiver);
      try {
        await deliveries(system, receiver, publisher, run);
        await commandsPerDelivery(system, receiver, publisher, add);
      } finally {
        await publisher.close();
      }
    }
    if (runs('read')) {
      const path = `/api/operators/${operator.uuid}`;
      await quietBefore('proxied read');
      await warmUp(system.gatewayUrl, path, operator.key);
      const proxied = await costPerUnit(through('gateway', 'operator-service'), () => timedLoad(system.gatewayUrl, path, operator.key));
      report('proxied read', 'request', proxied);
      const bare = await startBareProxy(system, operator, system.url('operator-service'));
      try {
        const bareGroup = serviceGroup('bare proxy', () => bare.pid);
        await quietBefore('proxied read, bare proxy', [bareGroup]);
        await warmUp(bare.url, path, operator.key);
        const baseline = await costPerUnit([bareGroup], () => timedLoad(bare.url, path, operator.key));
        const gatewayMs = proxied.msPerUnit.get('gateway') ?? Number.NaN;
        const bareMs = baseline.msPerUnit.get('bare proxy') ?? Number.NaN;
        LOG(`proxied read, bare proxy: ${baseline.units} × request in ${round(baseline.seconds, 1)} s`);
        add(`proxied read: bare proxy (node:http + undici Pool, same load) ${round(bareMs, 3)} ms CPU per request`);
        add(`proxied read: gateway/bare proxy CPU per request ${round(gatewayMs / bareMs, 2)}`);
      } finally {
        await bare.stop();
      }
    }
    // Beside the other read, and before the flows whose work the engine goes on with for minutes after them (the
    // zone imports' rescreening). It starts the gateway again: the gateway's RSS after the steady load is of the
    // replica that served the flows after it.
    if (runs('read-at-once')) await readAtOnce(system, operator, run);
    if (runs('submission')) {
      // The zones first: each rescreens the stored requests, which the engine does in a scan of them, so
      // imported after the first phase's submissions they kept it busy for minutes. Neither phase's
      // area changes: the first one's is far from every zone.
      await importZones(client, system.adminKey);
      await quietBefore('submission without screening');
      report(
        'submission without screening',
        'submission',
        await costPerUnit(through('gateway', 'flight-request-service'), () =>
          timedLoad(system.gatewayUrl, '/api/flight-requests', operator.key, submission(operator, UNSCREENED_LON)),
        ),
      );
      await quietBefore('submission with screening');
      report(
        `submission with screening (${ZONES} zones, 5 intersecting)`,
        'submission',
        await costPerUnit(through('gateway', 'flight-request-service'), () =>
          timedLoad(system.gatewayUrl, '/api/flight-requests', operator.key, submission(operator, SCREENED_LON)),
        ),
      );
    }
    if (runs('list')) {
      await quietBefore('list');
      report(
        'list',
        'request',
        await costPerUnit(through('gateway', 'flight-request-service'), () =>
          timedLoad(system.gatewayUrl, '/api/flight-requests?per_page=15', operator.key, undefined, PHASE_SECONDS, LIST_CONNECTIONS),
        ),
      );
    }
    if (runs('cancel')) {
      // The pool is sized on a burst of cancels: not on the list phase's aftermath in the engine.
      await quietBefore('cancel burst');
      const cancellable = await cancellableRequests(system, client, operator);
      await quietBefore('cancel');
      report(
        'cancel',
        'request',
        await costPerUnit(through('gateway', 'flight-request-service'), () => cancelAll(client, operator.key, cancellable)),
      );
    }

    if (runs('import')) {
      await quietBefore('zone import at the limits');
      const { bytes, peak, settledAfter } = await largeImport(system, client);
      const what = `zone import at the limits (${LARGE_IMPORT.zones} zones of ${LARGE_IMPORT.vertices} vertices, ${round(bytes / 2 ** 20, 1)} MiB)`;
      for (const name of IMPORT_SERVICES) {
        add(
          `${what}: ${name} peak RSS ${round(peak.get(name) ?? 0, 0)} MiB, ${SETTLE_SECONDS} s after its answer ${round(settledAfter.get(name) ?? 0, 0)} MiB`,
        );
      }
    }

    if (runs('steady')) {
      await quietBefore('steady load');
      const steady = await steadyLoad(system, receiver, client, operator);
      add(`steady load for ${STEADY_SECONDS} s: ${steady.load}`);
      for (const name of SERVICES) {
        const after = steady.after.get(name) ?? Infinity;
        add(
          `${name} RSS after ${STEADY_SECONDS} s of steady load ${round(after, 0)} MiB, at most ${round(steady.peak.get(name) ?? 0, 0)} MiB sampled during it (goal <= ${GOALS.rssMiB})`,
          after <= GOALS.rssMiB,
        );
      }
    }
    return { lines, goalsMet };
  } finally {
    await system.stop();
    await receiver.close();
  }
}

function baseMongoUrl(): string {
  const url = process.env['MONGO_URL'];
  if (!url) throw new Error('MONGO_URL is not set (npm run bench sets it)');
  return url;
}

function memory(system: System): Map<ServiceName, number> {
  return new Map(SERVICES.map((name) => [name, rssMiB(system.pid(name))]));
}

/** The README walkthrough against this system's gateway, its example receiver on a free port. */
async function walkthrough(system: System): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/walkthrough.ts'], {
    env: { ...process.env, GATEWAY_URL: system.gatewayUrl, ADMIN_API_KEY: system.adminKey, WALKTHROUGH_RECEIVER_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the walkthrough failed:\n${output.join('').slice(-2000)}`);
  LOG('README walkthrough passed');
}

/** Requests to `base` for `seconds` with CONNECTIONS at once; how many answered 2xx (any other answer fails the figure). */
async function timedLoad(
  base: string,
  path: string,
  key: string,
  body?: string,
  seconds = PHASE_SECONDS,
  connections = CONNECTIONS,
): Promise<number> {
  const target = {
    // A list reads the whole collection on the local engine (docs/architecture.md, "The local engine"): slow, not failed.
    timeout: 120,
    url: `${base}${path}`,
    method: body === undefined ? ('GET' as const) : ('POST' as const),
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  };
  const result = await load(target, connections, seconds);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return result.requests.total;
}

const SCREENED_LON = 10;
/** Far from every zone the bench imports: a submission there is not screened against any. */
const UNSCREENED_LON = -20;

function submission(operator: RegisteredOperator, lon: number): string {
  return JSON.stringify(flightRequestBody(operator, {}, lon));
}

async function waitUntilKnown(client: GatewayClient, operator: RegisteredOperator): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, {}, UNSCREENED_LON) });
    if (answer.status === 201) return;
    if (Date.now() > deadline) throw new Error(`the operator never became known: ${answer.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** ZONES conditional zones on a grid, five of them over the screened area (findings, no review item). */
async function importZones(client: GatewayClient, adminKey: string): Promise<void> {
  const features = Array.from({ length: ZONES }, (_, index) => {
    const over = index < 5;
    return {
      type: 'Feature',
      id: `cost-zone-${index}`,
      properties: {
        name: `Cost zone ${index}`,
        type: 'NATURE',
        restriction: 'CONDITIONAL',
        lower_limit_m: 0,
        upper_limit_m: 500,
        authority: 'NATURE',
      },
      geometry: {
        type: 'Polygon',
        coordinates: [
          boxRing(over ? [SCREENED_LON - 0.05 + index * 0.005, 51.95] : [20 + (index % 100) * 0.2, 40 + Math.floor(index / 100) * 0.4], 0.1),
        ],
      },
    };
  });
  for (let offset = 0; offset < features.length; offset += IMPORT_CHUNK) {
    const answer = await client.send('POST', '/api/zones/import', {
      key: adminKey,
      body: { type: 'FeatureCollection', features: features.slice(offset, offset + IMPORT_CHUNK) },
    });
    if (answer.status !== 200) throw new Error(`zone import answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}

/** LARGE_IMPORT through the gateway: the body's size, and the peak RSS of IMPORT_SERVICES from the request until SETTLE_SECONDS after the answer. */
async function largeImport(
  system: System,
  client: GatewayClient,
): Promise<{ bytes: number; peak: Map<ServiceName, number>; settledAfter: Map<ServiceName, number> }> {
  const features = Array.from({ length: LARGE_IMPORT.zones }, (_, index) => {
    const [lon, lat] = [30 + (index % 25) * 0.5, 30 + Math.floor(index / 25) * 0.5];
    const ring = Array.from({ length: LARGE_IMPORT.vertices }, (_, k) => {
      const angle = (2 * Math.PI * k) / LARGE_IMPORT.vertices;
      return [Number((lon + 0.2 * Math.cos(angle)).toFixed(6)), Number((lat + 0.2 * Math.sin(angle)).toFixed(6))];
    });
    return {
      type: 'Feature',
      id: `large-import-${index}`,
      properties: {
        name: `Large import ${index}`,
        type: 'NATURE',
        restriction: 'CONDITIONAL',
        lower_limit_m: 0,
        upper_limit_m: 500,
        authority: 'NATURE',
      },
      geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
    };
  });
  const body = { type: 'FeatureCollection', features };
  for (const name of IMPORT_SERVICES) resetPeakRss(system.pid(name));
  const answer = await client.send('POST', '/api/zones/import', { key: system.adminKey, body });
  if (answer.status !== 200) throw new Error(`the large zone import answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
  const peak = new Map(IMPORT_SERVICES.map((name) => [name, peakRssMiB(system.pid(name))]));
  return { bytes: Buffer.byteLength(JSON.stringify(body)), peak, settledAfter: memory(system) };
}

/** An unmeasured burst of cancels first, whose rate sizes the pool: the pool holds CANCEL_POOL_MARGIN phases at it. */
const CANCEL_PROBE_SECONDS = 3;
/** Requests the burst starts with at least: enough that it does not run out at the fastest cancel rate seen here. */
const CANCEL_PROBE_MINIMUM = 1_500;
const CANCEL_POOL_MARGIN = 1.5;
const TOP_UP_SECONDS = 5;

/**
 * The operator's cancellable requests, topped up by unmeasured submissions until they outlast the cancel phase at
 * the rate a short burst of cancels measures. Sized on the submissions' rate instead, the pool ran out: cancels go
 * faster than submissions, and a top-up right after the other phases submits slower than they did.
 */
async function cancellableRequests(system: System, client: GatewayClient, operator: RegisteredOperator): Promise<string[]> {
  let probe = await storedRequests(system, operator.uuid);
  const before = await topUp(system, operator, CANCEL_PROBE_MINIMUM - probe.length);
  if (before > 0) probe = await storedRequests(system, operator.uuid);
  const cancelsPerSecond = (await cancelAll(client, operator.key, probe, CANCEL_PROBE_SECONDS)) / CANCEL_PROBE_SECONDS;
  const after = await topUp(system, operator, CANCEL_POOL_MARGIN * PHASE_SECONDS * cancelsPerSecond - probe.length);
  const pool = await storedRequests(system, operator.uuid);
  LOG(
    `cancel: ${pool.length} requests to cancel (${round(cancelsPerSecond, 0)} a second in a burst of ${CANCEL_PROBE_SECONDS} s; ${before + after} submitted to top up)`,
  );
  return pool;
}

/** Submits, TOP_UP_SECONDS at a time and unmeasured, until `missing` more requests are stored; how many were. */
async function topUp(system: System, operator: RegisteredOperator, missing: number): Promise<number> {
  let submitted = 0;
  while (submitted < missing) {
    submitted += await timedLoad(system.gatewayUrl, '/api/flight-requests', operator.key, submission(operator, UNSCREENED_LON), TOP_UP_SECONDS);
  }
  return submitted;
}

/** The operator's stored requests that can still be cancelled, read straight from the service's database. */
async function storedRequests(system: System, operatorUuid: string): Promise<string[]> {
  const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database('flight-request-service') }).asPromise();
  try {
    const docs = await connection
      .collection('flight_requests')
      .find({ operator_uuid: operatorUuid, status: { $in: ['Pending', 'Approved'] } }, { projection: { _id: 1 } })
      .toArray();
    return docs.map((doc) => String(doc['_id']));
  } finally {
    await connection.close();
  }
}

/** Cancels for `seconds` (or until none is left), CONNECTIONS at once, taking them off `uuids`; how many were cancelled. */
async function cancelAll(client: GatewayClient, key: string, uuids: string[], seconds = PHASE_SECONDS): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let cancelled = 0;
  const worker = async () => {
    for (let uuid = uuids.pop(); uuid !== undefined && performance.now() < deadline; uuid = uuids.pop()) {
      const answer = await client.send('DELETE', `/api/flight-requests/${uuid}`, { key, body: { reason: 'Benchmark' } });
      if (answer.status !== 200) throw new Error(`cancel answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      cancelled++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  if (performance.now() < deadline) LOG(`cancel: ran out of requests to cancel before ${seconds} s`);
  return cancelled;
}

/** Puts status_change events where a deliverer takes them. */
interface EventPublisher {
  publish(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * status_change events published for `seconds` (PHASE_SECONDS), fanned out to
 * WEBHOOK_ENDPOINTS receiver paths, with at most WEBHOOK_BACKLOG deliveries
 * outstanding, and at most `perSecond` deliveries a second when given; the
 * phase ends when every one arrived. How many deliveries arrived.
 */
async function deliverFor(receiver: BenchReceiver, events: EventPublisher, perSecond = Infinity, seconds = PHASE_SECONDS): Promise<number> {
  const first = receiver.count;
  let published = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  while (performance.now() < deadline) {
    const backlogFull = published * WEBHOOK_ENDPOINTS - (receiver.count - first) >= WEBHOOK_BACKLOG;
    const aheadOfRate = published * WEBHOOK_ENDPOINTS >= (perSecond * (performance.now() - start)) / 1000;
    if (backlogFull || aheadOfRate) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      continue;
    }
    await events.publish(10);
    published += 10;
  }
  const expected = published * WEBHOOK_ENDPOINTS;
  const waitUntil = Date.now() + 120_000;
  while (receiver.count - first < expected) {
    if (Date.now() > waitUntil) throw new Error(`only ${receiver.count - first} of ${expected} deliveries arrived`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return expected;
}

/** The domain events webhook-service consumes, of an operator with WEBHOOK_ENDPOINTS endpoints at the receiver. */
async function serviceEvents(system: System, receiver: BenchReceiver): Promise<EventPublisher> {
  const operatorUuid = randomUUID();
  const signer = new InternalTokenSigner(system.privateKeyPem);
  const principal: Principal = { sub: operatorUuid, role: 'operator', operator_uuid: operatorUuid, key_id: 'cost' };
  for (let index = 0; index < WEBHOOK_ENDPOINTS; index++) {
    const answer = await fetch(`${system.url('webhook-service')}/api/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-token': await signer.sign(principal) },
      body: JSON.stringify({ url: `${receiver.url}/cost/${index}`, events: ['status_change'] }),
    });
    if (answer.status !== 201) throw new Error(`endpoint registration answered ${answer.status}`);
  }
  const broker = await Broker.connect(system.amqpUrl, system.exchange, createLogger('cost-bench', 'warn'));
  return {
    publish: async (count) => {
      await Promise.all(
        Array.from({ length: count }, () => broker.publish(newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, statusData(operatorUuid)))),
      );
    },
    close: () => broker.close(),
  };
}

/**
 * Deliveries of `publisher`'s events through webhook-service after a warm-up, its CPU per delivery; then the bare
 * deliverer, at the rate webhook-service reached (CPU per unit depends on how many units share each wake-up).
 */
async function deliveries(system: System, receiver: BenchReceiver, publisher: EventPublisher, run: RunReporting): Promise<void> {
  const { group, add, report, quietBefore, engines } = run;
  const flow = 'webhook delivery';
  await quietBefore(flow);
  await deliverFor(receiver, publisher, Infinity, WARM_UP_SECONDS);
  const delivered = await costPerUnit([group('webhook-service'), ...engines], () => deliverFor(receiver, publisher));
  report(flow, 'delivery', delivered);
  const bare = await startBareDeliverer(system, receiver, `${baseMongoUrl()}/bench_bare_deliverer`);
  try {
    const rate = delivered.units / delivered.seconds;
    const bareGroup = serviceGroup('bare deliverer', () => bare.pid);
    await quietBefore(`${flow}, bare deliverer`, [bareGroup]);
    await deliverFor(receiver, bare.publisher, rate, WARM_UP_SECONDS);
    const baseline = await costPerUnit([bareGroup, ...engines], () => deliverFor(receiver, bare.publisher, rate));
    const serviceMs = delivered.msPerUnit.get('webhook-service') ?? Number.NaN;
    const bareMs = baseline.msPerUnit.get('bare deliverer') ?? Number.NaN;
    LOG(`${flow}, bare deliverer: ${baseline.units} × delivery in ${round(baseline.seconds, 1)} s`);
    add(`${flow}: bare deliverer (amqplib + node:http + one insert per event, at webhook-service's rate) ${round(bareMs, 3)} ms CPU per delivery`);
    for (const [name, ms] of baseline.msPerUnit)
      if (name !== 'bare deliverer') add(`${flow}, bare deliverer: ${name} ${round(ms, 3)} ms CPU per delivery`);
    add(`${flow}: webhook-service/bare deliverer CPU per delivery ${round(serviceMs / bareMs, 2)}`);
  } finally {
    await bare.stop();
  }
}

/**
 * The database commands a delivery costs, at full speed: webhook-service hosted in this process (its child stopped
 * meanwhile, so this copy alone takes the events), every command its connection sends over COUNTED_SECONDS of
 * deliveries, by the driver's command monitoring, divided by the deliveries. The child is started again after.
 */
async function commandsPerDelivery(system: System, receiver: BenchReceiver, publisher: EventPublisher, add: RunReporting['add']): Promise<void> {
  await system.kill('webhook-service', 'SIGTERM');
  try {
    const hosted = await hostWebhookService(system);
    try {
      await deliverFor(receiver, publisher, Infinity, WARM_UP_SECONDS);
      const before = hosted.tally.counts();
      const delivered = await deliverFor(receiver, publisher, Infinity, COUNTED_SECONDS);
      const commands = commandsBetween(before, hosted.tally.counts());
      const perDelivery = commands.total / delivered;
      const byName = [...commands.byName].map(([name, count]) => `${name} ${round(count / delivered, 2)}`).join(', ');
      add(
        `webhook delivery: ${round(perDelivery, 2)} database commands per delivery [${byName}] over ${delivered} deliveries (goal <= ${GOALS.commandsPerDelivery})`,
        perDelivery <= GOALS.commandsPerDelivery,
      );
    } finally {
      await hosted.stop();
    }
  } finally {
    await system.start('webhook-service');
  }
}

/** webhook-service on this system's database and broker, in this process, its connection's commands tallied. */
async function hostWebhookService(system: System): Promise<{ tally: CommandTally; stop(): Promise<void> }> {
  const config = loadWebhookConfig({
    ...WEBHOOK_ENV,
    MONGO_URL: system.mongoUrl,
    MONGO_DB: system.database('webhook-service'),
    AMQP_URL: system.amqpUrl,
    AMQP_EXCHANGE: system.exchange,
    INTERNAL_TOKEN_PUBLIC_KEY: system.publicKeyPem,
    ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true',
    ALLOW_HTTP_WEBHOOKS: 'true',
    LOG_LEVEL,
  });
  // Errors only: its connection's close at the end of the count is logged as a warning, and is expected.
  const opened = await withCommandMonitoring(() => openResources('webhook-service', config, createLogger('webhook-service', 'error')));
  const tally = new CommandTally(opened.resources.connection.getClient());
  const service = createWebhookService(opened.resources);
  try {
    await service.start();
  } catch (error) {
    await opened.close();
    throw error;
  }
  return {
    tally,
    stop: async () => {
      await service.stop();
      await opened.close();
    },
  };
}

interface SteadyMemory {
  /** What the load did. */
  load: string;
  /** Each service's RSS once the load ended, MiB. */
  after: Map<ServiceName, number>;
  /** The most each service held at a sample during it, MiB. */
  peak: Map<ServiceName, number>;
}

/**
 * STEADY_SECONDS of a mixed load, all parts at once: the operator's reads and screened submissions through the
 * gateway at STEADY_RATES, its lists, and status changes fanned out to two endpoints; each service's RSS sampled
 * every RSS_SAMPLE_SECONDS. A replica lives for days under such a load: what it holds after it is what an operator
 * sets the limit by. Answers other than 2xx are counted, not fatal: the phase measures memory, and a list the
 * loaded local engine answers too late must not cost the run its figures.
 */
async function steadyLoad(system: System, receiver: BenchReceiver, client: GatewayClient, operator: RegisteredOperator): Promise<SteadyMemory> {
  const peak = new Map<ServiceName, number>();
  const sample = () => {
    for (const [name, mib] of memory(system)) peak.set(name, Math.max(peak.get(name) ?? 0, mib));
  };
  const sampling = setInterval(sample, RSS_SAMPLE_SECONDS * 1000);
  const publisher = await serviceEvents(system, receiver);
  try {
    const [traffic, delivered] = await Promise.all([
      steadyTraffic(client, operator, STEADY_SECONDS, SCREENED_LON),
      deliverFor(receiver, publisher, STEADY_RATES.deliveries, STEADY_SECONDS),
    ]);
    sample();
    return { after: memory(system), peak, load: `${describeTraffic(traffic)}, ${delivered} deliveries` };
  } finally {
    clearInterval(sampling);
    await publisher.close();
  }
}

interface BareDeliverer {
  pid: number;
  /** Events straight to its queue (confirmed), which webhook-service never sees. */
  publisher: EventPublisher;
  stop(): Promise<void>;
}

/** bench/bare-deliverer.ts on this system's broker and database, run as webhook-service is. */
async function startBareDeliverer(system: System, receiver: BenchReceiver, recordsUrl: string): Promise<BareDeliverer> {
  const queue = `bench.bare-deliverer.${randomUUID()}`;
  const baseline = await startBaseline('bench/bare-deliverer.ts', 'webhook-service', {
    BARE_DELIVERER_AMQP_URL: system.amqpUrl,
    BARE_DELIVERER_QUEUE: queue,
    BARE_DELIVERER_MONGO_URL: recordsUrl,
    BARE_DELIVERER_TARGETS: Array.from({ length: WEBHOOK_ENDPOINTS }, (_, index) => `${receiver.url}/bare/${index}`).join(','),
  });
  const connection = await connect(system.amqpUrl);
  const channel = await connection.createConfirmChannel();
  const operatorUuid = randomUUID();
  const publisher: EventPublisher = {
    publish: async (count) => {
      for (let index = 0; index < count; index++) {
        const event = newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, statusData(operatorUuid));
        channel.sendToQueue(queue, Buffer.from(JSON.stringify(event)), { persistent: true, contentType: 'application/json', messageId: event.id });
      }
      await channel.waitForConfirms();
    },
    close: async () => {
      await channel.deleteQueue(queue);
      await connection.close();
    },
  };
  return {
    pid: baseline.pid,
    publisher,
    stop: async () => {
      await baseline.stop();
      await publisher.close();
      const records = await mongoose.createConnection(recordsUrl).asPromise();
      await records.dropDatabase();
      await records.close();
    },
  };
}

interface BareProxy {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * bench/bare-proxy.ts in front of `upstream` (this system's operator-service,
 * or the recorded upstream in front of it), run as the gateway is, holding an
 * internal token for `operator` that is signed again at a third of its life.
 */
async function startBareProxy(system: System, operator: RegisteredOperator, upstream: string): Promise<BareProxy> {
  const signer = new InternalTokenSigner(system.privateKeyPem);
  const principal: Principal = { sub: operator.uuid, role: 'operator', operator_uuid: operator.uuid, key_id: operator.keyId };
  const baseline = await startBaseline<{ port: number }>('bench/bare-proxy.ts', 'gateway', {
    BARE_PROXY_UPSTREAM: upstream,
    BARE_PROXY_TOKEN: await signer.sign(principal),
  });
  const renewal = setInterval(
    () => void signer.sign(principal).then((token) => baseline.child.send({ token })),
    (INTERNAL_TOKEN_TTL_SECONDS * 1000) / 3,
  );
  return {
    url: `http://127.0.0.1:${baseline.ready.port}`,
    pid: baseline.pid,
    stop: async () => {
      clearInterval(renewal);
      await baseline.stop();
    },
  };
}

/** What a flow measured in a function of its own needs of the run: its groups, its report, its wait for quiet. */
interface RunReporting {
  group: (name: ServiceName) => ProcessGroup;
  add: (line: string, ok?: boolean) => void;
  /** The lines of a phase's CPU per unit, each process's, judged where a goal applies. */
  report: (flow: string, unit: string, cost: CostPerUnit) => void;
  quietBefore: (flow: string, baseline?: ProcessGroup[]) => Promise<void>;
  /** The database engine's and the broker's processes. */
  engines: ProcessGroup[];
}

/**
 * The proxied read with the engine out of the way: the gateway, started again
 * with bench/recorded-upstream.ts as its operator-service, then the bare proxy
 * in front of the same, each under the read's load after a warm-up; the
 * gateway is started again as it was. What the gateway's CPU per request is
 * when its upstream answers as fast as the machine lets it, as on an engine
 * that takes more reads a second than this one.
 */
async function readAtOnce(system: System, operator: RegisteredOperator, run: RunReporting): Promise<void> {
  const { group, add, quietBefore } = run;
  const flow = 'proxied read, upstream answering at once';
  const path = `/api/operators/${operator.uuid}`;
  const recorded = await startBaseline<{ port: number }>('bench/recorded-upstream.ts', 'operator-service', {
    RECORDED_UPSTREAM: system.url('operator-service'),
  });
  const upstream = `http://127.0.0.1:${recorded.ready.port}`;
  /** CPU per request of `proxy` after a warm-up. */
  const measured = async (base: string, proxy: ProcessGroup) => {
    await quietBefore(`${flow}, ${proxy.name}`, proxy.name === 'gateway' ? [] : [proxy]);
    await warmUp(base, path, operator.key);
    const cost = await costPerUnit([proxy], () => timedLoad(base, path, operator.key));
    LOG(`${flow}, ${proxy.name}: ${cost.units} × request in ${round(cost.seconds, 1)} s`);
    return cost.msPerUnit.get(proxy.name) ?? Number.NaN;
  };
  try {
    await system.kill('gateway', 'SIGTERM');
    await system.start('gateway', { OPERATOR_SERVICE_URL: upstream });
    const gatewayMs = await measured(system.gatewayUrl, group('gateway'));
    add(`${flow}: gateway ${round(gatewayMs, 3)} ms CPU per request (goal <= ${GOALS.gatewayMsPerRead})`, gatewayMs <= GOALS.gatewayMsPerRead);
    const bare = await startBareProxy(system, operator, upstream);
    try {
      const bareMs = await measured(
        bare.url,
        serviceGroup('bare proxy', () => bare.pid),
      );
      add(`${flow}: bare proxy ${round(bareMs, 3)} ms CPU per request`);
      add(`${flow}: gateway/bare proxy CPU per request ${round(gatewayMs / bareMs, 2)}`);
    } finally {
      await bare.stop();
    }
  } finally {
    await system.kill('gateway', 'SIGTERM');
    await system.start('gateway');
    await recorded.stop();
  }
}

/** Load before a measured phase: connections open, the hot paths compiled. None when BENCH_WARM_UP_SECONDS=0, as for the deliveries. */
async function warmUp(base: string, path: string, key: string): Promise<void> {
  if (WARM_UP_SECONDS <= 0) return;
  await load({ url: `${base}${path}`, headers: { 'x-api-key': key } }, CONNECTIONS, WARM_UP_SECONDS);
}

interface Baseline<Ready> {
  child: ChildProcess;
  pid: number;
  /** The first message the child sent: it is ready. */
  ready: Ready;
  stop(): Promise<void>;
}

/**
 * A same-run baseline (bench/bare-*.ts) as a child with an IPC channel, run as
 * `service` is (its node options); resolves once
 * the child's first message says it is ready.
 */
async function startBaseline<Ready = unknown>(script: string, service: ServiceName, env: Record<string, string>): Promise<Baseline<Ready>> {
  const nodeOptions = entryPoint(service, 'main', true).slice(0, -1);
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', script], {
    env: { PATH: process.env['PATH'] ?? '', ...NODE_OPTIONS, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Ready));
      child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
    });
    return { child, pid: child.pid ?? Number.NaN, ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
