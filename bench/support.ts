import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { FlightRequestStatusChanged } from '@dfc/contracts';
import autocannon from 'autocannon';
import mongoose, { mongo } from 'mongoose';
import { startSystem, type System } from '../e2e/src/system.js';

/**
 * Runs autocannon against `target` for `seconds` with `connections`; each
 * response's exact time (ms, fractional) and status go to `onResponse`, since
 * autocannon's own histogram only resolves whole milliseconds, and each
 * request that got no answer (an error, a time-out) to `onError`, as they come.
 */
export function load(
  target: autocannon.Options,
  connections: number,
  seconds: number,
  onResponse?: (responseTime: number, status: number) => void,
  onError?: (error: Error) => void,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...target, connections, duration: seconds }, (error, result) => (error ? reject(error) : resolve(result)));
    if (onResponse) instance.on('response', (_client, status, _bytes, responseTime) => onResponse(responseTime, status));
    if (onError) instance.on('reqError', onError);
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

/** Runs `task` `total` times, `concurrency` at a time; the seconds it all took. */
export async function secondsToRun(total: number, concurrency: number, task: () => Promise<void>): Promise<number> {
  let remaining = total;
  const worker = async () => {
    while (remaining > 0) {
      remaining--;
      await task();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - started) / 1000;
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Up to `maxSamples` calls one after another, for at most `maxSeconds`: each call's time in ms, sorted. */
export async function timeCalls(call: () => Promise<void>, maxSamples: number, maxSeconds: number): Promise<number[]> {
  const times: number[] = [];
  const deadline = performance.now() + maxSeconds * 1000;
  while (times.length < maxSamples && performance.now() < deadline) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/** A database command as the driver sent it. */
export interface SentCommand {
  name: string;
  command: Record<string, unknown>;
}

/** The request header that names a request whose database commands are counted. */
export const COUNTED_REQUEST_HEADER = 'x-bench-request';

/**
 * Counts the database commands each HTTP request of an in-process service
 * causes, with the driver's command monitoring: the request's handling runs
 * in an async context of its own, and every command started in it (the
 * relay's publish right after the write included) is the request's.
 */
export class CommandsPerRequest {
  private readonly scope = new AsyncLocalStorage<SentCommand[]>();
  private readonly byRequest = new Map<string, SentCommand[]>();

  constructor(client: mongo.MongoClient) {
    client.on('commandStarted', (event: mongo.CommandStartedEvent) => {
      this.scope.getStore()?.push({ name: event.commandName, command: event.command });
    });
  }

  /** Wraps the service's request listener: a request with the header gets its own count. */
  listener(handle: RequestListener): RequestListener {
    return (request, response) => {
      const id = request.headers[COUNTED_REQUEST_HEADER];
      if (typeof id !== 'string') return handle(request, response);
      const sent: SentCommand[] = [];
      this.byRequest.set(id, sent);
      this.scope.run(sent, () => handle(request, response));
    };
  }

  /** The commands request `id` caused so far. */
  take(id: string): SentCommand[] {
    const sent = this.byRequest.get(id) ?? [];
    this.byRequest.delete(id);
    return sent;
  }
}

/** The driver's own traffic (handshakes, heartbeats, sessions, authentication): not what the code asked of the database. */
const DRIVER_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'saslStart', 'saslContinue', 'buildInfo', 'buildinfo']);

/**
 * Every command a client sends, by name, with the driver's command monitoring (the connection
 * opened with it on, `withCommandMonitoring`); the driver's own traffic is left out.
 */
export class CommandTally {
  private readonly counted = new Map<string, number>();

  constructor(client: mongo.MongoClient) {
    client.on('commandStarted', (event: mongo.CommandStartedEvent) => {
      if (!DRIVER_COMMANDS.has(event.commandName)) this.counted.set(event.commandName, (this.counted.get(event.commandName) ?? 0) + 1);
    });
  }

  /** Commands counted so far, by name. */
  counts(): Map<string, number> {
    return new Map(this.counted);
  }
}

/** Commands in `after` beyond those in `before`, by name, and in all. */
export function commandsBetween(before: Map<string, number>, after: Map<string, number>): { total: number; byName: Map<string, number> } {
  const byName = new Map<string, number>();
  let total = 0;
  for (const [name, count] of after) {
    const added = count - (before.get(name) ?? 0);
    if (added <= 0) continue;
    byName.set(name, added);
    total += added;
  }
  return { total, byName };
}

/**
 * Opens a service's resources with the driver's command monitoring on: the kit's connectMongo turns
 * it on when DB_COMMAND_LOG names a file (the index-coverage recording), so it names /dev/null for
 * the call alone when no run records one.
 */
export async function withCommandMonitoring<T>(open: () => Promise<T>): Promise<T> {
  if (process.env['DB_COMMAND_LOG'] !== undefined) return open();
  process.env['DB_COMMAND_LOG'] = '/dev/null';
  try {
    return await open();
  } finally {
    delete process.env['DB_COMMAND_LOG'];
  }
}

/**
 * The outbox relay's publication of a write (`@dfc/kit/broker`): read the
 * document's outbox, pull what was published, clear the pending mark. Told
 * apart so the figures say what the request itself asked of the database.
 */
export function isOutboxRelayCommand(sent: SentCommand): boolean {
  const { name, command } = sent;
  if (name === 'find') {
    const projection = command['projection'];
    return typeof projection === 'object' && projection !== null && Object.keys(projection).join() === 'outbox';
  }
  if (name !== 'update' || !Array.isArray(command['updates'])) return false;
  return (command['updates'] as Array<{ q?: Record<string, unknown>; u?: Record<string, unknown> }>).some(
    (statement) => (statement.q !== undefined && 'outbox' in statement.q) || (statement.u !== undefined && '$pullAll' in statement.u),
  );
}

/**
 * Sends commands recorded from a service again, straight to the driver, all
 * at once (as a service sends a page and its count). A cursor left open by
 * an answer is killed, as the driver would, so no server-side cursor (and,
 * on the local engine, no pooled backend connection) is left behind.
 */
export async function replayCommands(db: mongo.Db, commands: SentCommand[]): Promise<void> {
  await Promise.all(
    commands.map(async (sent) => {
      const reply = await db.command(withoutSession(sent.command));
      const id = (reply['cursor'] as { id?: unknown } | undefined)?.id;
      const open = id instanceof mongo.Long ? !id.isZero() : typeof id === 'number' && id !== 0;
      if (open) await db.command({ killCursors: sent.command[sent.name], cursors: [id] });
    }),
  );
}

/** The command without what the driver adds per session (`lsid`, `$clusterTime`, `$db`, …). */
function withoutSession(command: Record<string, unknown>): mongo.Document {
  return Object.fromEntries(Object.entries(command).filter(([field]) => !field.startsWith('$') && field !== 'lsid' && field !== 'txnNumber'));
}

/**
 * Inserts `count` copies of a stored document, straight into its collection,
 * in batches: each copy gets a new `_id` (and the same new value wherever the
 * template repeats its `_id`, e.g. a `uuid` field), a fresh value for every
 * other uniquely indexed top-level field, an empty outbox, and whatever
 * `vary` changes. The copies have the model's shape whatever the store.
 */
export async function insertCopies(
  collection: mongo.Collection,
  template: mongo.Document,
  count: number,
  vary: (copy: mongo.Document, n: number) => void,
  batchSize = 1000,
): Promise<void> {
  const unique = (await collection.indexes())
    .filter((index) => index.unique && index.name !== '_id_')
    .flatMap((index) => Object.keys(index.key))
    .filter((field) => typeof template[field] === 'string');
  for (let offset = 0; offset < count; offset += batchSize) {
    const batch = Array.from({ length: Math.min(batchSize, count - offset) }, (_, index) => {
      const copy = copyOf(template, unique);
      vary(copy, offset + index);
      return copy;
    });
    await collection.insertMany(batch, { ordered: false });
  }
}

function copyOf(template: mongo.Document, uniqueFields: string[]): mongo.Document {
  const id = typeof template['_id'] === 'string' ? randomUUID() : new mongo.ObjectId();
  const copy: mongo.Document = { ...template, _id: id };
  for (const [field, value] of Object.entries(template)) {
    if (field !== '_id' && value === template['_id']) copy[field] = id;
  }
  for (const field of uniqueFields) if (copy[field] === template[field]) copy[field] = randomUUID();
  if ('outbox' in copy) copy['outbox'] = [];
  delete copy['outbox_pending_since'];
  return copy;
}

export interface BenchReceiver {
  url: string;
  /** How long every answer waits (a slow receiver). */
  delayMs: number;
  /** Arrival time (performance.now) of each webhook, by event id and path. */
  arrivals: Map<string, number>;
  count: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<BenchReceiver> {
  const state = { count: 0, delayMs: 0, arrivals: new Map<string, number>() };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') state.arrivals.set(`${id} ${req.url}`, performance.now());
      const answer = () => {
        state.count++;
        res.end('ok');
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    arrivals: state.arrivals,
    get count() {
      return state.count;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A status change of one of the operator's requests, as flight-request-service publishes it. */
export function statusData(operatorUuid: string): FlightRequestStatusChanged {
  return {
    flight_request_uuid: randomUUID(),
    operator_uuid: operatorUuid,
    previous_status: 'Pending',
    status: 'Approved',
    reason: null,
    actor: 'screening',
    changed_at: new Date().toISOString(),
    sequence: 2,
  };
}

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The services a submission passes through. */
export const SUBMISSION_SERVICES = ['operator-service', 'flight-request-service', 'gateway'] as const;

/** An operator registered for a bench, with its API key. */
export interface BenchClient {
  uuid: string;
  email: string;
  key: string;
}

/**
 * Runs `work` on a fresh system of SUBMISSION_SERVICES (compiled, as the image
 * runs them; no rate limit in the way), then stops it and drops its databases.
 */
export async function withSystem<T>(work: (system: System) => Promise<T>, flightRequestServiceEnv: Record<string, string> = {}): Promise<T> {
  const system = await startSystem({
    compiled: true,
    services: [...SUBMISSION_SERVICES],
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
    serviceEnv: { 'flight-request-service': flightRequestServiceEnv },
  });
  try {
    return await work(system);
  } finally {
    await system.stop();
    await dropDatabases(system);
  }
}

/** A run leaves nothing behind: 100,000 seeded requests would slow every later user of the shared database server. */
export async function dropDatabases(system: System): Promise<void> {
  for (const service of SUBMISSION_SERVICES) {
    if (service === 'gateway') continue;
    const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database(service) }).asPromise();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  }
}

/** Registers an operator through the gateway and issues it a key (HTTP Basic with its email and password). */
export async function registerWithKey(system: System): Promise<BenchClient> {
  const email = `bench-${randomUUID()}@example.com`;
  const password = 'benchmark-password';
  const registered = await fetch(`${system.gatewayUrl}/api/operators`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ company_name: 'Bench Aerial', email, password, phone: '+1 555 0100', timezone: 'Europe/Amsterdam' }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${await registered.text()}`);
  const { data } = (await registered.json()) as { data: { uuid: string } };
  const issued = await fetch(`${system.gatewayUrl}/api/operators/${data.uuid}/api-keys`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
  if (issued.status !== 201) throw new Error(`key issuance failed: ${issued.status} ${await issued.text()}`);
  return { uuid: data.uuid, email, key: ((await issued.json()) as { data: { key: string } }).data.key };
}
