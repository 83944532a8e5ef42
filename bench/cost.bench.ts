import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { INTERNAL_TOKEN_TTL_SECONDS, InternalTokenSigner } from '@dfc/kit/http';
import { newEvent, RoutingKeys, type Principal } from '@dfc/contracts';
import { connect } from 'amqplib';
import mongoose from 'mongoose';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../e2e/src/client.js';
import { entryPoint, startSystem, type ServiceName, type System } from '../e2e/src/system.js';
import { costPerUnit, engineGroups, gcTotals, heapCompactions, ioSyscalls, peakRssMiB, resetPeakRss, rssByMapping, rssMiB, serviceGroup, untilQuiet, type CostPerUnit, type GcTotals, type HeapCompactions, type ProcessGroup } from './accounting.js';
import { commandsBetween, startCommandCounter, type CommandCounter } from './command-counter.js';
import { startInstantWrites } from './instant-writes.js';
import type { BenchSummary } from './run.js';
import { freePort, load, round, startReceiver, statusData, type BenchReceiver } from './support.js';

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
 * set the pace, beside the bare proxy's in front of the same; and the
 * delivery again with the database acknowledging writes at once
 * (bench/instant-writes.ts), beside the bare deliverer on the same. Processes:
 * the services, the gateway, the database engine (FerretDB + PostgreSQL, or
 * mongod) and the broker (RabbitMQ's Erlang VM). The engines are shared with
 * whoever else uses the machine, so their figures include that load. The
 * delivery and read phases (and their baselines) come after WARM_UP_SECONDS of
 * the same load, so they measure a replica that has compiled its hot paths.
 * Every phase starts once the services and the engines have gone quiet
 * (QUIET_MS_PER_SECOND), so it does not share the cores with the work an
 * earlier flow left behind; the log says how long each one waited.
 *
 * Memory: each service's RSS idle (started, nothing done), after the README
 * walkthrough (scripts/walkthrough.ts), with where it lies then (the node
 * binary's pages, anonymous memory, malloc's heap, libraries), SETTLE_SECONDS
 * later (V8's memory reducer has collected the quiet heap), and after the
 * whole run. And the CPU each service spends while quiet, in those
 * SETTLE_SECONDS: what a replica costs when nothing happens.
 *
 * The largest request: a zone import at the services' limits (LARGE_IMPORT,
 * just under the 16 MiB body limit), each service's peak RSS from the request
 * until SETTLE_SECONDS after its answer (the zone.changed events it causes
 * are handled by then), and the RSS then.
 *
 * Database commands per delivery: counted on the wire between webhook-service
 * and the database (bench/command-counter.ts).
 *
 * BENCH_COST_FLOWS=delivery,delivery-at-once,read,read-at-once,submission,list,cancel,import (any of them, or
 * `none` for the memory figures alone): the flows to run, all by default; for
 * trying one change against one figure without waiting for the others.
 *
 * BENCH_CPU_PROF=<dir>: webhook-service, flight-request-service, the gateway and the bare
 * baselines write a V8 CPU profile there when they stop (`node --cpu-prof`); summarise one with
 * `npx tsx bench/profile-top.ts <file>`.
 *
 * BENCH_WARM_UP_SECONDS=<s>: the warm-up before the delivery and read phases (15 by default).
 *
 * BENCH_NODE_ARGS="<flags>": node flags for the four services, after the image's (Dockerfile
 * ENTRYPOINT), so a flag can be tried against the shipped ones without editing the Dockerfile,
 * e.g. BENCH_NODE_ARGS=--max-semi-space-size=1.
 *
 * BENCH_INSPECT=1: the four services and the bare baselines each listen with an inspector on a
 * free loopback port, for `npx tsx bench/allocation-sites.ts <pid>` during a phase (what a unit
 * allocates, and where). The sampling costs CPU: figures of such a run are not comparable.
 */
const PHASE_SECONDS = Math.max(20, Number(process.env['BENCH_PHASE_SECONDS'] ?? 20));
/**
 * The same load, unmeasured, before the delivery and read phases: V8 compiles a function with its optimising
 * compiler (TurboFan) after about 3,000 calls, so a phase that started cold measured its first seconds on the
 * mid-tier compiler's code and the compilations themselves, which a replica pays once in its life.
 */
const WARM_UP_SECONDS = Number(process.env['BENCH_WARM_UP_SECONDS'] ?? 15);
const CONNECTIONS = 8;
/**
 * A phase (and its warm-up) starts once the services and the engines together spend under this much CPU in a
 * second (`untilQuiet`), waiting QUIET_LIMIT_SECONDS at most. An idle system reads 0–60 ms in a second here (the
 * services' timers, the engine's upkeep); the large import's rescreening keeps FerretDB at 80–150 % of a core.
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
/** How long after the walkthrough the settled RSS is read: past V8's memory reducer's 8 s delay. */
const SETTLE_SECONDS = 15;
/** Deliveries in flight at most during the delivery phase, so the phase ends soon after the publishing does. */
const WEBHOOK_BACKLOG = 200;
const GOALS = { webhookMsPerDelivery: 0.6, commandsPerDelivery: 3, gatewayMsPerRead: 0.15, rssMiB: 90 } as const;
const SERVICES: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service', 'gateway'];
const FLOWS = ['delivery', 'delivery-at-once', 'read', 'read-at-once', 'submission', 'list', 'cancel', 'import'] as const;
const selected = new Set((process.env['BENCH_COST_FLOWS'] ?? FLOWS.join(',')).split(',').map((flow) => flow.trim()));
const runs = (flow: (typeof FLOWS)[number]) => selected.has(flow);
const LOG = (line: string) => process.stdout.write(`cost: ${line}\n`);
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];
/** Node options that make a process write a CPU profile when it stops, when BENCH_CPU_PROF asks for them. */
const profile = PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : [];
/** Node flags tried on every service after the image's own (the last one given wins), when BENCH_NODE_ARGS names them. */
const TRIED_NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
/** An inspector on a free port, when BENCH_INSPECT asks for one (bench/allocation-sites.ts finds it by the process id). */
const inspector = process.env['BENCH_INSPECT'] ? ['--inspect=127.0.0.1:0'] : [];

export default async function costBench(): Promise<BenchSummary> {
  const counter = await startCommandCounter(baseMongoUrl());
  const receiver = await startReceiver();
  const system = await startSystem({
    compiled: true,
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
    serviceEnv: { 'webhook-service': { MONGO_URL: counter.url, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '4', WEBHOOK_MAX_IN_FLIGHT: '64' } },
    nodeArgs: Object.fromEntries(SERVICES.map((name) => [name, [...(name === 'operator-service' ? [] : profile), ...inspector, ...TRIED_NODE_ARGS]])),
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
    const walkedByMapping = new Map(SERVICES.map((name) => [name, rssByMapping(system.pid(name))]));
    // V8's memory reducer collects a heap that has gone quiet 8 s after its last burst: what a service settles at.
    // What a quiet service costs in the meantime (its timers, its connections' upkeep, that collection) is read too.
    const quiet = await costPerUnit(
      SERVICES.map(group),
      () => new Promise((resolve) => setTimeout(() => resolve(1), SETTLE_SECONDS * 1000)),
    );
    const settled = memory(system);
    const compactions = () => heapCompactions(system.url('flight-request-service'), 'zone import');
    const walkthroughCompactions = await compactions();

    const client = new GatewayClient(system.gatewayUrl);
    const operator = await client.registerOperatorWithKey({ timezone: 'Europe/Amsterdam' });
    await waitUntilKnown(client, operator);
    const engines = engineGroups();
    const report = (flow: string, unit: string, cost: CostPerUnit) => {
      LOG(`${flow}: ${cost.units} × ${unit} in ${round(cost.seconds, 1)} s`);
      for (const [name, ms] of cost.msPerUnit) {
        if (name === 'gateway' && flow === 'proxied read') add(`${flow}: gateway ${round(ms, 3)} ms CPU per ${unit} (goal <= ${GOALS.gatewayMsPerRead})`, ms <= GOALS.gatewayMsPerRead);
        else if (name === 'webhook-service') add(`${flow}: webhook-service ${round(ms, 3)} ms CPU per ${unit} (goal <= ${GOALS.webhookMsPerDelivery})`, ms <= GOALS.webhookMsPerDelivery);
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
      await deliveries(system, receiver, publisher, run, { flow: 'webhook delivery', counter, recordsUrl: `${baseMongoUrl()}/bench_bare_deliverer` }).finally(() => publisher.close());
    }
    if (runs('delivery-at-once')) await deliveryAtOnce(system, receiver, run);
    if (runs('read')) {
      const path = `/api/operators/${operator.uuid}`;
      await quietBefore('proxied read');
      await warmUp(system.gatewayUrl, path, operator.key);
      const collections = await collectionsSince(system.url('gateway'));
      const proxied = await costPerUnit(through('gateway', 'operator-service'), () => timedLoad(system.gatewayUrl, path, operator.key));
      report('proxied read', 'request', proxied);
      add(`proxied read: gateway ${await collections(proxied.units, 'request')}`);
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
    // zone imports' rescreening). It starts the gateway again: the gateway's RSS after the run is of the replica
    // that served the flows after it.
    if (runs('read-at-once')) await readAtOnce(system, operator, run);
    if (runs('submission')) {
      // The zones first: each rescreens the stored requests, which the engine does in a scan of them, so
      // imported after the first phase's 1,500 submissions they kept it busy for minutes. Neither phase's
      // area changes: the first one's is far from every zone.
      await importZones(client, system.adminKey);
      await quietBefore('submission without screening');
      report(
        'submission without screening',
        'submission',
        await costPerUnit(through('gateway', 'flight-request-service'), () => timedLoad(system.gatewayUrl, '/api/flight-requests', operator.key, submission(operator, UNSCREENED_LON))),
      );
      await quietBefore('submission with screening');
      report(
        `submission with screening (${ZONES} zones, 5 intersecting)`,
        'submission',
        await costPerUnit(through('gateway', 'flight-request-service'), () => timedLoad(system.gatewayUrl, '/api/flight-requests', operator.key, submission(operator, SCREENED_LON))),
      );
    }
    if (runs('list')) {
      await quietBefore('list');
      report('list', 'request', await costPerUnit(through('gateway', 'flight-request-service'), () => timedLoad(system.gatewayUrl, '/api/flight-requests?per_page=15', operator.key)));
    }
    if (runs('cancel')) {
      // The pool is sized on a burst of cancels: not on the list phase's aftermath in the engine.
      await quietBefore('cancel burst');
      const cancellable = await cancellableRequests(system, client, operator);
      await quietBefore('cancel');
      report('cancel', 'request', await costPerUnit(through('gateway', 'flight-request-service'), () => cancelAll(client, operator.key, cancellable)));
    }

    if (runs('import')) {
      await quietBefore('zone import at the limits');
      const before = await compactions();
      const { bytes, peak, settledAfter } = await largeImport(system, client);
      const what = `zone import at the limits (${LARGE_IMPORT.zones} zones of ${LARGE_IMPORT.vertices} vertices, ${round(bytes / 2 ** 20, 1)} MiB)`;
      for (const name of IMPORT_SERVICES) {
        add(`${what}: ${name} peak RSS ${round(peak.get(name) ?? 0, 0)} MiB, ${SETTLE_SECONDS} s after its answer ${round(settledAfter.get(name) ?? 0, 0)} MiB`);
      }
      add(`${what}: flight-request-service ${describeCompactions(before, await compactions())}`);
    }

    const after = memory(system);
    for (const name of SERVICES) {
      add(`${name} RSS idle ${round(idle.get(name) ?? 0, 0)} MiB`);
      add(`${name} RSS after the README walkthrough ${round(walked.get(name) ?? 0, 0)} MiB (goal <= ${GOALS.rssMiB})`, (walked.get(name) ?? Infinity) <= GOALS.rssMiB);
      add(`${name} RSS after the README walkthrough by mapping: ${describeMappings(walkedByMapping.get(name))}`);
      add(`${name} RSS ${SETTLE_SECONDS} s after the README walkthrough ${round(settled.get(name) ?? 0, 0)} MiB`);
      add(`${name} CPU while quiet (those ${SETTLE_SECONDS} s) ${round((quiet.msPerUnit.get(name) ?? 0) / quiet.seconds, 2)} ms per second`);
      add(`${name} RSS after the run ${round(after.get(name) ?? 0, 0)} MiB`);
    }
    add(`the README walkthrough's zone import: flight-request-service ${describeCompactions({ count: 0, pauseSeconds: 0 }, walkthroughCompactions)}`);
    return { lines, goalsMet };
  } finally {
    await system.stop();
    await receiver.close();
    await counter.close();
  }
}

function baseMongoUrl(): string {
  const url = process.env['MONGO_URL'];
  if (!url) throw new Error('MONGO_URL is not set (npm run bench sets it)');
  return url;
}

function describeMappings(byMapping: Map<string, number> | undefined): string {
  return [...(byMapping ?? [])]
    .sort((a, b) => b[1] - a[1])
    .map(([name, mib]) => `${name} ${round(mib, 1)}`)
    .join(', ') + ' MiB';
}

/** A phase's garbage collections per unit, described once the units done since the reading are known. */
type CollectionsPerUnit = (units: number, unit: string) => Promise<string>;

/**
 * A service's garbage collections from now on, per unit of the work it then does (its /metrics): its
 * scavenges (how much a unit allocates, counted in young generations filled) and the collector's
 * pauses as V8 reports them, every kind.
 */
async function collectionsSince(serviceUrl: string): Promise<CollectionsPerUnit> {
  const before = await gcTotals(serviceUrl);
  return async (units, unit) => {
    const after = await gcTotals(serviceUrl);
    const grew = (field: keyof GcTotals, kind: string) => (after[field].get(kind) ?? 0) - (before[field].get(kind) ?? 0);
    const pauseMs = [...after.seconds.keys()].reduce((sum, kind) => sum + grew('seconds', kind), 0) * 1000;
    return `${round(grew('count', 'minor') / units, 3)} scavenges and ${round(pauseMs / units, 3)} ms of collector pauses per ${unit}`;
  };
}

/** The compactions between two readings (item 42): how many, and how long the service stood still for them. */
function describeCompactions(before: HeapCompactions, after: HeapCompactions): string {
  const count = after.count - before.count;
  const pauseMs = (after.pauseSeconds - before.pauseSeconds) * 1000;
  return `${count} heap compaction${count === 1 ? '' : 's'} after it, ${round(pauseMs, 0)} ms of pause${count > 1 ? ` (${round(pauseMs / count, 0)} ms each)` : ''}`;
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
async function timedLoad(base: string, path: string, key: string, body?: string, seconds = PHASE_SECONDS): Promise<number> {
  const target = {
    // A list reads the whole collection on the local engine (docs/architecture.md, "The local engine"): slow, not failed.
    timeout: 120,
    url: `${base}${path}`,
    method: body === undefined ? ('GET' as const) : ('POST' as const),
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  };
  const result = await load(target, CONNECTIONS, seconds);
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
  const square = (lon: number, lat: number, size: number) => [
    [lon, lat],
    [lon + size, lat],
    [lon + size, lat + size],
    [lon, lat + size],
    [lon, lat],
  ];
  const features = Array.from({ length: ZONES }, (_, index) => {
    const over = index < 5;
    return {
      type: 'Feature',
      id: `cost-zone-${index}`,
      properties: { name: `Cost zone ${index}`, type: 'NATURE', restriction: 'CONDITIONAL', lower_limit_m: 0, upper_limit_m: 500, authority: 'NATURE' },
      geometry: {
        type: 'Polygon',
        coordinates: [over ? square(SCREENED_LON - 0.05 + index * 0.005, 51.95, 0.1) : square(20 + (index % 100) * 0.2, 40 + Math.floor(index / 100) * 0.4, 0.1)],
      },
    };
  });
  for (let offset = 0; offset < features.length; offset += IMPORT_CHUNK) {
    const answer = await client.send('POST', '/api/zones/import', { key: adminKey, body: { type: 'FeatureCollection', features: features.slice(offset, offset + IMPORT_CHUNK) } });
    if (answer.status !== 200) throw new Error(`zone import answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}

/** LARGE_IMPORT through the gateway: the body's size, and the peak RSS of IMPORT_SERVICES from the request until SETTLE_SECONDS after the answer. */
async function largeImport(system: System, client: GatewayClient): Promise<{ bytes: number; peak: Map<ServiceName, number>; settledAfter: Map<ServiceName, number> }> {
  const features = Array.from({ length: LARGE_IMPORT.zones }, (_, index) => {
    const [lon, lat] = [30 + (index % 25) * 0.5, 30 + Math.floor(index / 25) * 0.5];
    const ring = Array.from({ length: LARGE_IMPORT.vertices }, (_, k) => {
      const angle = (2 * Math.PI * k) / LARGE_IMPORT.vertices;
      return [Number((lon + 0.2 * Math.cos(angle)).toFixed(6)), Number((lat + 0.2 * Math.sin(angle)).toFixed(6))];
    });
    return {
      type: 'Feature',
      id: `large-import-${index}`,
      properties: { name: `Large import ${index}`, type: 'NATURE', restriction: 'CONDITIONAL', lower_limit_m: 0, upper_limit_m: 500, authority: 'NATURE' },
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
/** Requests the burst starts with at least: it must not run out (cancels went at 160–200 a second here). */
const CANCEL_PROBE_MINIMUM = 1_500;
const CANCEL_POOL_MARGIN = 1.5;
const TOP_UP_SECONDS = 5;

/**
 * The operator's cancellable requests, topped up by unmeasured submissions until they outlast the cancel phase at
 * the rate a short burst of cancels measures. Sized on the submissions' rate instead, the pool ran out: cancels go
 * about twice as fast as submissions (item 56), and a top-up right after the other phases submitted at 43 a second
 * against their 106 (2026-11-29).
 */
async function cancellableRequests(system: System, client: GatewayClient, operator: RegisteredOperator): Promise<string[]> {
  let probe = await storedRequests(system, operator.uuid);
  const before = await topUp(system, operator, CANCEL_PROBE_MINIMUM - probe.length);
  if (before > 0) probe = await storedRequests(system, operator.uuid);
  const cancelsPerSecond = (await cancelAll(client, operator.key, probe, CANCEL_PROBE_SECONDS)) / CANCEL_PROBE_SECONDS;
  const after = await topUp(system, operator, CANCEL_POOL_MARGIN * PHASE_SECONDS * cancelsPerSecond - probe.length);
  const pool = await storedRequests(system, operator.uuid);
  LOG(`cancel: ${pool.length} requests to cancel (${round(cancelsPerSecond, 0)} a second in a burst of ${CANCEL_PROBE_SECONDS} s; ${before + after} submitted to top up)`);
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
      await Promise.all(Array.from({ length: count }, () => broker.publish(newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, statusData(operatorUuid)))));
    },
    close: () => broker.close(),
  };
}

interface DeliveryPhase {
  flow: string;
  /** Counts webhook-service's database commands, when the phase reports them. */
  counter?: CommandCounter;
  /** The database the bare deliverer records its answers in. */
  recordsUrl: string;
}

/**
 * Deliveries of `publisher`'s events through webhook-service after a warm-up: its CPU per delivery, its system
 * calls and collections per delivery, its database commands when counted; then the bare deliverer, at the rate
 * webhook-service reached (CPU per unit depends on how many units share each wake-up).
 */
async function deliveries(system: System, receiver: BenchReceiver, publisher: EventPublisher, run: RunReporting, phase: DeliveryPhase): Promise<void> {
  const { group, add, report, quietBefore, engines } = run;
  const { flow, counter } = phase;
  await quietBefore(flow);
  await deliverFor(receiver, publisher, Infinity, WARM_UP_SECONDS);
  const pid = system.pid('webhook-service');
  const before = { commands: counter?.counts(), syscalls: ioSyscalls(pid), gc: await collectionsSince(system.url('webhook-service')) };
  const delivered = await costPerUnit([group('webhook-service'), ...engines], () => deliverFor(receiver, publisher));
  report(flow, 'delivery', delivered);
  const syscallsAfter = ioSyscalls(pid);
  const perUnit = (before: number, after: number) => round((after - before) / delivered.units, 2);
  add(`${flow}: webhook-service ${perUnit(before.syscalls.writes, syscallsAfter.writes)} write and ${perUnit(before.syscalls.reads, syscallsAfter.reads)} read system calls per delivery`);
  add(`${flow}: webhook-service ${await before.gc(delivered.units, 'delivery')}`);
  if (counter !== undefined && before.commands !== undefined) {
    const commands = commandsBetween(before.commands, counter.counts());
    const perDelivery = commands.total / delivered.units;
    const byName = [...commands.byName].map(([name, count]) => `${name} ${round(count / delivered.units, 2)}`).join(', ');
    add(`${flow}: ${round(perDelivery, 2)} database commands per delivery [${byName}] (goal <= ${GOALS.commandsPerDelivery})`, perDelivery <= GOALS.commandsPerDelivery);
  }
  const bare = await startBareDeliverer(system, receiver, phase.recordsUrl);
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
    for (const [name, ms] of baseline.msPerUnit) if (name !== 'bare deliverer') add(`${flow}, bare deliverer: ${name} ${round(ms, 3)} ms CPU per delivery`);
    add(`${flow}: webhook-service/bare deliverer CPU per delivery ${round(serviceMs / bareMs, 2)}`);
  } finally {
    await bare.stop();
  }
}

/**
 * The delivery with the engine's writes out of the way (item 51): webhook-service started again on
 * bench/instant-writes.ts, which acknowledges every write at once and passes the reads on to the engine, then
 * the bare deliverer recording its answers through the same; webhook-service is started again as it was. What a
 * delivery costs the service when the database takes its writes as fast as it sends them, as an engine with many
 * times this one's rate does, beside what the least deliverer costs at the same rate.
 */
async function deliveryAtOnce(system: System, receiver: BenchReceiver, run: RunReporting): Promise<void> {
  // The endpoints first, stored by the service as it runs on the engine: what the relay acknowledges is not stored.
  const publisher = await serviceEvents(system, receiver);
  const writes = await startInstantWrites(baseMongoUrl());
  const records = await startInstantWrites(`${baseMongoUrl()}/bench_bare_deliverer`);
  try {
    await system.kill('webhook-service', 'SIGTERM');
    await system.start('webhook-service', { MONGO_URL: writes.url });
    await deliveries(system, receiver, publisher, run, { flow: 'webhook delivery, database answering at once', recordsUrl: records.url });
  } finally {
    await publisher.close();
    await system.kill('webhook-service', 'SIGTERM');
    await system.start('webhook-service');
    await writes.close();
    await records.close();
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
  const renewal = setInterval(() => void signer.sign(principal).then((token) => baseline.child.send({ token })), (INTERNAL_TOKEN_TTL_SECONDS * 1000) / 3);
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
  const recorded = await startBaseline<{ port: number }>('bench/recorded-upstream.ts', 'operator-service', { RECORDED_UPSTREAM: system.url('operator-service') });
  const upstream = `http://127.0.0.1:${recorded.ready.port}`;
  /** CPU per request of `proxy` after a warm-up; with `metricsUrl`, its collections over the same load too. */
  const measured = async (base: string, proxy: ProcessGroup, metricsUrl?: string) => {
    await quietBefore(`${flow}, ${proxy.name}`, proxy.name === 'gateway' ? [] : [proxy]);
    await warmUp(base, path, operator.key);
    const collections = metricsUrl === undefined ? undefined : await collectionsSince(metricsUrl);
    const cost = await costPerUnit([proxy], () => timedLoad(base, path, operator.key));
    LOG(`${flow}, ${proxy.name}: ${cost.units} × request in ${round(cost.seconds, 1)} s`);
    const gc = collections === undefined ? '' : await collections(cost.units, 'request');
    return { ms: cost.msPerUnit.get(proxy.name) ?? Number.NaN, gc };
  };
  try {
    await system.kill('gateway', 'SIGTERM');
    await system.start('gateway', { OPERATOR_SERVICE_URL: upstream });
    const { ms: gatewayMs, gc } = await measured(system.gatewayUrl, group('gateway'), system.url('gateway'));
    add(`${flow}: gateway ${round(gatewayMs, 3)} ms CPU per request (goal <= ${GOALS.gatewayMsPerRead})`, gatewayMs <= GOALS.gatewayMsPerRead);
    add(`${flow}: gateway ${gc}`);
    const bare = await startBareProxy(system, operator, upstream);
    try {
      const { ms: bareMs } = await measured(bare.url, serviceGroup('bare proxy', () => bare.pid));
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
  const child = spawn(process.execPath, [...nodeOptions, ...profile, ...inspector, '--import', 'tsx', script], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
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
