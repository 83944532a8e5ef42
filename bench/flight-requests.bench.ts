import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { mongo } from 'mongoose';
import { boxRing, flightRequestExample, INTERNAL_TOKEN_HEADER, type Principal } from '@dfc/contracts';
import { isLocalEngineOnly } from '@dfc/kit/db';
import { InternalTokenSigner } from '@dfc/kit/http';
import { createLogger } from '@dfc/kit/logging';
import { openResources } from '@dfc/kit/service';
import { loadFlightRequestServiceConfig } from '../services/flight-request-service/src/config.js';
import { createFlightRequestService } from '../services/flight-request-service/src/service.js';
import { startSystem, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import {
  COUNTED_REQUEST_HEADER,
  CommandsPerRequest,
  dropDatabases,
  insertCopies,
  isOutboxRelayCommand,
  type Measured,
  measure,
  percentile,
  registerWithKey,
  replayCommands,
  round,
  type SentCommand,
  withSystem,
} from './support.js';
import { generateTokenKeys, describeUnserved, findUnservedQueries, parseCommandLog, unrecorded } from '@dfc/kit/testing';

/**
 * The flight-request-service from one run:
 *
 * (a) submission throughput through the gateway with 5,000 geo-zones loaded ÷ with none
 *     (goal >= 0.9): screening must stay cheap however many zones exist (spatial index);
 * (b) submission throughput with the outbox relay publishing ÷ switched off
 *     (OUTBOX_PUBLISH=false; goal >= 0.9): publishing must not slow the writers;
 * (c) database commands per request, counted with the driver's command monitoring on the
 *     service run in-process: submit <= 4, get 1, list 2, cancel <= 3 (the relay's publication
 *     of the write's events is counted apart);
 * (d) list latency (the operator's first page) at 10,000 and 100,000 stored requests, the
 *     listing operator owning 1 in 100, seeded as copies of a stored request straight into
 *     the collection, beside the very commands of a list sent straight to the driver (goal:
 *     the service's p50 at most 1.25x the driver's). The local engine serves no secondary
 *     index (docs/architecture.md, "The local engine"), so both read the whole collection
 *     there; MongoDB serves them from the declared indexes.
 *
 * Each throughput figure comes from a fresh system (own databases), so one run's stored
 * requests do not slow the next one's queries. BENCH_SKIP_THROUGHPUT=1 leaves out (a) and (b);
 * BENCH_LIST_SIZES (e.g. "10000") chooses the store sizes of (d).
 */
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const ZONES = 5000;
const IMPORT_CHUNK = 250;
const GOAL_RATIO = 0.9;
const HOUR = 3_600_000;
const LOG = (line: string) => process.stdout.write(`flight-requests: ${line}\n`);

export interface Client {
  uuid: string;
  key: string;
}

interface Figures {
  lines: string[];
  goalsMet: boolean;
}

export default async function flightRequestsBench(): Promise<BenchSummary> {
  const figures = [...(process.env['BENCH_SKIP_THROUGHPUT'] === '1' ? [] : [await throughputFigures()]), await persistenceFigures()];
  return { lines: figures.flatMap((figure) => figure.lines), goalsMet: figures.every((figure) => figure.goalsMet) };
}

const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');

/** Printed as soon as measured, so a run that fails later still shows them. */
function logged(figures: Figures): Figures {
  for (const line of figures.lines) LOG(line);
  return figures;
}

async function throughputFigures(): Promise<Figures> {
  const none = await withClient({}, async (system, client) => measureSubmissions('zones0, publishing on', system, client));
  const zoned = await withClient({}, async (system, client) => {
    await importZones(system);
    return measureSubmissions(`zones${ZONES}, publishing on`, system, client);
  });
  const unpublished = await withClient({ OUTBOX_PUBLISH: 'false' }, async (system, client) =>
    measureSubmissions('zones0, publishing off', system, client),
  );
  const zonesRatio = zoned.requestsPerSecond / none.requestsPerSecond;
  const publishRatio = none.requestsPerSecond / unpublished.requestsPerSecond;
  const lines = [
    `zones${ZONES}/zones0 throughput ratio = ${round(zonesRatio)} (goal >= ${GOAL_RATIO}) ${verdict(zonesRatio >= GOAL_RATIO)}` +
      ` [${round(zoned.requestsPerSecond, 0)} vs ${round(none.requestsPerSecond, 0)} req/s]`,
    `publish-on/publish-off throughput ratio = ${round(publishRatio)} (goal >= ${GOAL_RATIO}) ${verdict(publishRatio >= GOAL_RATIO)}` +
      ` [${round(none.requestsPerSecond, 0)} vs ${round(unpublished.requestsPerSecond, 0)} req/s]`,
  ];
  return logged({ lines, goalsMet: zonesRatio >= GOAL_RATIO && publishRatio >= GOAL_RATIO });
}

/** A fresh system (support.ts) with an operator the flight-request-service already knows. */
function withClient<T>(serviceEnv: Record<string, string>, work: (system: System, client: Client) => Promise<T>): Promise<T> {
  return withSystem(async (system) => work(system, await knownClient(system)), serviceEnv);
}

async function knownClient(system: System): Promise<Client> {
  const client = await registerWithKey(system);
  await waitUntilKnown(system, client);
  return client;
}

/** The flight-request-service learns of the operator from operator.registered; submissions wait for that. */
async function waitUntilKnown(system: System, client: Client): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(`${system.gatewayUrl}/api/flight-requests`, submitInit(client));
    if (response.status === 201) return;
    if (Date.now() > deadline) throw new Error(`operator never became known: ${response.status} ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function submission(operatorUuid: string): Record<string, unknown> {
  const start = new Date(Math.ceil((Date.now() + HOUR) / 1000) * 1000);
  return flightRequestExample({ operatorUuid, start, end: new Date(start.getTime() + 2 * HOUR), corner: [4.89, 52.37] });
}

function submitInit(client: Client): RequestInit {
  return {
    method: 'POST',
    headers: { 'x-api-key': client.key, 'content-type': 'application/json' },
    body: JSON.stringify(submission(client.uuid)),
  };
}

/**
 * 5,000 CONDITIONAL zones on a grid over western Europe, a handful of them over
 * the benchmark's flight area, so screening really intersects (a finding, no
 * review item: submissions stay automatic approvals).
 */
async function importZones(system: System): Promise<void> {
  const started = performance.now();
  const features = Array.from({ length: ZONES }, (_, index) => {
    const overArea = index < 5;
    const lon = overArea ? 4.85 + index * 0.005 : (index % 100) * 0.2;
    const lat = overArea ? 52.35 : 40 + Math.floor(index / 100) * 0.4;
    return {
      type: 'Feature',
      id: `bench-zone-${index}`,
      properties: {
        name: `Bench zone ${index}`,
        type: 'NATURE',
        restriction: 'CONDITIONAL',
        lower_limit_m: 0,
        upper_limit_m: 500,
        authority: 'NATURE',
      },
      geometry: { type: 'Polygon', coordinates: [boxRing([lon, lat], overArea ? 0.06 : 0.1)] },
    };
  });
  for (let offset = 0; offset < features.length; offset += IMPORT_CHUNK) {
    const response = await fetch(`${system.gatewayUrl}/api/zones/import`, {
      method: 'POST',
      headers: { 'x-api-key': system.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'FeatureCollection', features: features.slice(offset, offset + IMPORT_CHUNK) }),
    });
    if (response.status !== 200) throw new Error(`zone import failed: ${response.status} ${(await response.text()).slice(0, 500)}`);
  }
  LOG(`imported ${ZONES} zones in ${round((performance.now() - started) / 1000, 1)} s`);
}

function measureSubmissions(label: string, system: System, client: Client): Promise<Measured> {
  const init = submitInit(client);
  return measure(
    'flight-requests',
    label,
    { url: `${system.gatewayUrl}/api/flight-requests`, method: 'POST', headers: init.headers as Record<string, string>, body: init.body as string },
    CONNECTIONS,
    SECONDS,
  );
}

const LIST_SIZES = (process.env['BENCH_LIST_SIZES'] ?? '10000,100000').split(',').map(Number);
/** The listing operator owns one stored request in this many. */
const OPERATORS_IN_STORE = 100;
const COUNTED_SAMPLES = 10;
const LIST_PATH = '/api/flight-requests?per_page=15';
const LIST_PAIRS = Number(process.env['BENCH_LIST_SAMPLES'] ?? 60);
const LIST_SECONDS = Number(process.env['BENCH_LIST_SECONDS'] ?? 90);
const GOAL_COMMANDS = { submit: 4, get: 1, list: 2, cancel: 3 } as const;
const GOAL_LIST_RATIO = 1.25;

type Operation = keyof typeof GOAL_COMMANDS;

/** The flight-request-service in this process, its requests' database commands counted. */
interface HostedService {
  db: mongo.Db;
  counter: CommandsPerRequest;
  // Answers are read field by field (`data.uuid`, `meta.total`); `any` keeps that short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the reason above
  call(method: string, path: string, as: Principal, body?: unknown, counted?: string): Promise<{ status: number; body: any }>;
  /** After seeding straight into the database: the local engine's list copies of the seeded requests (engine-gaps.ts). */
  reconcileListCopies(): Promise<number>;
  stop(): Promise<void>;
}

async function persistenceFigures(): Promise<Figures> {
  // Recording turns the driver's command monitoring on (connectMongo); the log also tells which list queries no index serves.
  const commandLog = process.env['DB_COMMAND_LOG'] ?? join(tmpdir(), `dfc-bench-commands-${process.pid}.ndjson`);
  process.env['DB_COMMAND_LOG'] = commandLog;
  const system = await startSystem({ compiled: true, services: ['operator-service'], env: benchEnv() });
  let hosted: HostedService | undefined;
  try {
    hosted = await hostFlightRequestService(system);
    await system.start('gateway');
    const client = await knownClient(system);
    const operator: Principal = { sub: client.uuid, role: 'operator', operator_uuid: client.uuid, key_id: client.key.split('_')[1] ?? '' };
    const counted = await countCommands(hosted, operator, client.uuid);
    const lists: Figures[] = [];
    const requests = hosted.db.collection(counted.collection);
    // The bench's own count, not one of the service's queries: kept out of the index check.
    let stored = await unrecorded(() => requests.countDocuments());
    for (const size of LIST_SIZES) {
      await seed(requests, counted.template, size - stored, client.uuid);
      await hosted.reconcileListCopies();
      stored = size;
      lists.push(await measureList(hosted, operator, counted.listCommands, size));
    }
    for (const line of unservedQueries(commandLog)) LOG(line);
    return {
      lines: [...counted.figures.lines, ...lists.flatMap((list) => list.lines)],
      goalsMet: counted.figures.goalsMet && lists.every((list) => list.goalsMet),
    };
  } finally {
    await hosted?.stop();
    await system.stop();
    await dropDatabases(system);
  }
}

function benchEnv(): Record<string, string> {
  return { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' };
}

/** As `runService` would run it, on the port the gateway expects, with each counted request in an async context of its own. */
async function hostFlightRequestService(system: System): Promise<HostedService> {
  const url = new URL(system.url('flight-request-service'));
  const config = loadFlightRequestServiceConfig({
    MONGO_URL: system.mongoUrl,
    MONGO_DB: system.database('flight-request-service'),
    AMQP_URL: system.amqpUrl,
    AMQP_EXCHANGE: system.exchange,
    INTERNAL_TOKEN_PUBLIC_KEY: system.publicKeyPem,
    AUTHORISATION_SIGNING_KEY: generateTokenKeys().privateKeyPem,
    HOST: url.hostname,
    PORT: url.port,
    LOG_LEVEL: benchEnv()['LOG_LEVEL'],
  });
  const opened = await openResources('flight-request-service', config, createLogger('flight-request-service', config.LOG_LEVEL));
  const service = createFlightRequestService(opened.resources);
  await service.start();
  const counter = new CommandsPerRequest(opened.resources.connection.getClient());
  const handle = service.app.callback();
  // Koa answers a failed request itself (its onerror), so the promise it returns never rejects.
  const server = createServer(counter.listener((request, response) => void handle(request, response)));
  await new Promise<void>((resolve) => server.listen(Number(url.port), url.hostname, resolve));
  const signer = new InternalTokenSigner(system.privateKeyPem);
  const db = opened.resources.connection.db;
  if (!db) throw new Error('the flight-request-service has no database');
  return {
    db,
    counter,
    async call(method, path, as, body, countedAs) {
      const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: await signer.sign(as), 'content-type': 'application/json' };
      if (countedAs) headers[COUNTED_REQUEST_HEADER] = countedAs;
      const response = await fetch(`${url.origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    },
    reconcileListCopies: () => unrecorded(() => service.deps.requests.reconcileListCopies()),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.stop();
      await opened.close();
    },
  };
}

interface CountedRequests {
  figures: Figures;
  /** The collection the list reads, a stored request as a template for seeding, and the list's own commands. */
  collection: string;
  template: mongo.Document;
  listCommands: SentCommand[];
}

/** Submits, gets, lists and cancels COUNTED_SAMPLES times, counting each request's commands. */
async function countCommands(hosted: HostedService, operator: Principal, operatorUuid: string): Promise<CountedRequests> {
  const sent: Record<Operation, SentCommand[][]> = { submit: [], get: [], list: [], cancel: [] };
  const counted = async (operation: Operation, method: string, path: string, body?: unknown) => {
    const id = randomUUID();
    const reply = await hosted.call(method, path, operator, body, id);
    if (reply.status >= 300) throw new Error(`${operation}: ${reply.status} ${JSON.stringify(reply.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the relay's publication, started by the request, finishes
    sent[operation].push(hosted.counter.take(id));
    return reply.body as { data: { uuid: string } };
  };
  const uuids: string[] = [];
  for (let n = 0; n < COUNTED_SAMPLES; n++) uuids.push((await counted('submit', 'POST', '/api/flight-requests', submission(operatorUuid))).data.uuid);
  for (const uuid of uuids) await counted('get', 'GET', `/api/flight-requests/${uuid}`);
  for (let n = 0; n < COUNTED_SAMPLES; n++) await counted('list', 'GET', LIST_PATH);
  const listCommands = (sent.list[0] ?? []).filter((command) => !isOutboxRelayCommand(command));
  // The page is the find with a sort (a list may also read other collections, such as the operator's); on the local
  // engine the sorted find reads the list copies, and the page's requests are read by id after it.
  const finds = listCommands.filter((command) => command.name === 'find');
  const page =
    finds.find((command) => !isLocalEngineOnly(command.command) && command.command['sort'] !== undefined) ??
    finds.find((command) => isLocalEngineOnly(command.command) && command.command['sort'] === undefined);
  const collection = page?.command['find'];
  if (typeof collection !== 'string') throw new Error('the list sent no sorted find');
  const template = await hosted.db.collection(collection).findOne({ operator_uuid: operatorUuid });
  if (!template) throw new Error(`no stored request of the operator in ${collection}`);
  for (const uuid of uuids) await counted('cancel', 'DELETE', `/api/flight-requests/${uuid}`, { reason: 'Benchmark' });

  const perOperation = (Object.keys(GOAL_COMMANDS) as Operation[]).map((operation) => {
    const own = sent[operation].map(
      (commands) => commands.filter((command) => !isOutboxRelayCommand(command) && !isLocalEngineOnly(command.command)).length,
    );
    const relay = sent[operation].map((commands) => commands.filter(isOutboxRelayCommand).length);
    const engine = sent[operation].map((commands) => commands.filter((command) => isLocalEngineOnly(command.command)).length);
    const most = Math.max(...own);
    const names = [
      ...new Set(
        sent[operation]
          .flat()
          .filter((command) => !isOutboxRelayCommand(command) && !isLocalEngineOnly(command.command))
          .map((command) => command.name),
      ),
    ];
    const line =
      `${operation}: ${round(mean(own))} database commands per request (at most ${most}; goal <= ${GOAL_COMMANDS[operation]}) ` +
      `${verdict(most <= GOAL_COMMANDS[operation])} [${names.join(', ')}], plus ${round(mean(relay))} by the outbox relay's publication` +
      ` and ${round(mean(engine))} only the local engine is sent (its list copies)`;
    return { line, met: most <= GOAL_COMMANDS[operation] };
  });
  return {
    figures: logged({ lines: perOperation.map((entry) => entry.line), goalsMet: perOperation.every((entry) => entry.met) }),
    collection,
    template,
    listCommands,
  };
}

/** `count` copies of a stored request, of 100 operators, the listing one owning every 100th, older than the real ones. */
async function seed(collection: mongo.Collection, template: mongo.Document, count: number, listingOperator: string): Promise<void> {
  if (count <= 0) return;
  const started = performance.now();
  const others = Array.from({ length: OPERATORS_IN_STORE - 1 }, () => randomUUID());
  const oldest = Date.now() - 2 * HOUR;
  await insertCopies(collection, template, count, (copy, n) => {
    copy['operator_uuid'] = n % OPERATORS_IN_STORE === 0 ? listingOperator : others[n % others.length];
    const created = new Date(oldest - n * 1000);
    if ('created_at' in copy) copy['created_at'] = created;
    if ('updated_at' in copy) copy['updated_at'] = created;
  });
  LOG(`seeded ${count} requests in ${round((performance.now() - started) / 1000, 1)} s`);
}

/** The operator's first page through the service, and its recorded commands straight to the driver, in turns. */
async function measureList(hosted: HostedService, operator: Principal, listCommands: SentCommand[], stored: number): Promise<Figures> {
  const first = await hosted.call('GET', LIST_PATH, operator);
  if (first.status !== 200) throw new Error(`list: ${first.status}`);
  const service: number[] = [];
  const driver: number[] = [];
  const deadline = performance.now() + LIST_SECONDS * 1000;
  while (service.length < LIST_PAIRS && performance.now() < deadline) {
    let started = performance.now();
    const reply = await hosted.call('GET', LIST_PATH, operator);
    if (reply.status !== 200) throw new Error(`list: ${reply.status}`);
    service.push(performance.now() - started);
    started = performance.now();
    await replayCommands(hosted.db, listCommands);
    driver.push(performance.now() - started);
  }
  service.sort((a, b) => a - b);
  driver.sort((a, b) => a - b);
  const ratio = percentile(service, 0.5) / percentile(driver, 0.5);
  const met = ratio <= GOAL_LIST_RATIO;
  return logged({
    lines: [
      `list at ${stored} stored requests (${(first.body as { meta?: { total?: number } }).meta?.total} the operator's, ${service.length} samples): service p50 ${round(percentile(service, 0.5))} ms, ` +
        `p99 ${round(percentile(service, 0.99))} ms; driver p50 ${round(percentile(driver, 0.5))} ms; ratio ${round(ratio)} (goal <= ${GOAL_LIST_RATIO}) ${verdict(met)}`,
    ],
    goalsMet: met,
  });
}

function unservedQueries(commandLog: string): string[] {
  try {
    return findUnservedQueries(parseCommandLog(readFileSync(commandLog, 'utf8'))).map((query) => `no index on MongoDB: ${describeUnserved(query)}`);
  } catch {
    return [];
  }
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}
