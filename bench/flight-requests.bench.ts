import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { startSystem, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import { type Measured, measure, percentile, round } from './support.js';

/**
 * The flight-request-service under load, through the gateway, from one run:
 *
 * (a) submission throughput with 5,000 geo-zones loaded ÷ with none (goal >= 0.9):
 *     screening must stay cheap however many zones exist (spatial index);
 * (b) submission throughput with the outbox relay publishing ÷ switched off
 *     (OUTBOX_PUBLISH=false; goal >= 0.9): publishing must not slow the writers;
 * (c) list latency p50/p99 with 100,000 stored requests (goal p99 <= 50 ms), the
 *     listing operator owning 1,000 of them, seeded straight into the database.
 *     The indexes that serve it are MongoDB's; FerretDB (SQLite) pushes down
 *     only `_id` equality, so there every list reads the whole collection.
 *
 * Each throughput figure comes from a fresh system (own databases), so one
 * run's stored requests do not slow the next one's queries.
 */
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const ZONES = 5000;
const IMPORT_CHUNK = 250;
const STORED_REQUESTS = 100_000;
const OPERATORS_IN_STORE = 100;
const SEED_BATCH = 1000;
const LIST_SECONDS = Number(process.env['BENCH_LIST_SECONDS'] ?? 60);
const LIST_SAMPLES = 500;
const GOAL_RATIO = 0.9;
const GOAL_LIST_P99_MS = 50;
const HOUR = 3_600_000;
const LOG = (line: string) => process.stdout.write(`flight-requests: ${line}\n`);

interface Client {
  uuid: string;
  key: string;
}

export default async function flightRequestsBench(): Promise<BenchSummary> {
  const none = await withSystem({}, async (system, client) => measureSubmissions('zones0, publishing on', system, client));
  const zoned = await withSystem({}, async (system, client) => {
    await importZones(system);
    return measureSubmissions(`zones${ZONES}, publishing on`, system, client);
  });
  const unpublished = await withSystem({ OUTBOX_PUBLISH: 'false' }, async (system, client) =>
    measureSubmissions('zones0, publishing off', system, client),
  );
  const list = await withSystem({}, async (system, client) => {
    await seedRequests(system, client.uuid);
    return measureList(system, client);
  });

  const zonesRatio = zoned.requestsPerSecond / none.requestsPerSecond;
  const publishRatio = none.requestsPerSecond / unpublished.requestsPerSecond;
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  const lines = [
    `zones${ZONES}/zones0 throughput ratio = ${round(zonesRatio)} (goal >= ${GOAL_RATIO}) ${verdict(zonesRatio >= GOAL_RATIO)}` +
      ` [${round(zoned.requestsPerSecond, 0)} vs ${round(none.requestsPerSecond, 0)} req/s]`,
    `publish-on/publish-off throughput ratio = ${round(publishRatio)} (goal >= ${GOAL_RATIO}) ${verdict(publishRatio >= GOAL_RATIO)}` +
      ` [${round(none.requestsPerSecond, 0)} vs ${round(unpublished.requestsPerSecond, 0)} req/s]`,
    `list latency with ${STORED_REQUESTS} stored requests p50 = ${round(list.p50)} ms, p99 = ${round(list.p99)} ms (goal p99 <= ${GOAL_LIST_P99_MS} ms) ${verdict(list.p99 <= GOAL_LIST_P99_MS)}`,
  ];
  for (const line of lines) LOG(line);
  return { lines, goalsMet: zonesRatio >= GOAL_RATIO && publishRatio >= GOAL_RATIO && list.p99 <= GOAL_LIST_P99_MS };
}

const SERVICES = ['operator-service', 'flight-request-service', 'gateway'] as const;

async function withSystem<T>(serviceEnv: Record<string, string>, work: (system: System, client: Client) => Promise<T>): Promise<T> {
  const system = await startSystem({
    services: [...SERVICES],
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
    serviceEnv: { 'flight-request-service': serviceEnv },
  });
  try {
    return await work(system, await registerWithKey(system));
  } finally {
    await system.stop();
    await dropDatabases(system);
  }
}

/** A run leaves nothing behind: 100,000 seeded requests would slow every later user of the shared database server. */
async function dropDatabases(system: System): Promise<void> {
  for (const service of SERVICES) {
    if (service === 'gateway') continue;
    const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database(service) }).asPromise();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  }
}

async function registerWithKey(system: System): Promise<Client> {
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
  const client = { uuid: data.uuid, key: ((await issued.json()) as { data: { key: string } }).data.key };
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
  return {
    operator_uuid: operatorUuid,
    operator_name: 'Bench Pilot',
    operator_email: 'pilot@example.com',
    operator_phone: '+1 555 0100',
    start_time: start.toISOString().replace('.000Z', 'Z'),
    end_time: new Date(start.getTime() + 2 * HOUR).toISOString().replace('.000Z', 'Z'),
    max_altitude: 100,
    aircraft_type: 'multirotor',
    purpose: 'Benchmark flight',
    flight_area: {
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [square(4.89, 52.37, 0.01)] } }],
    },
  };
}

function submitInit(client: Client): RequestInit {
  return {
    method: 'POST',
    headers: { 'x-api-key': client.key, 'content-type': 'application/json' },
    body: JSON.stringify(submission(client.uuid)),
  };
}

function square(lon: number, lat: number, size: number): number[][] {
  return [
    [lon, lat],
    [lon + size, lat],
    [lon + size, lat + size],
    [lon, lat + size],
    [lon, lat],
  ];
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
      geometry: { type: 'Polygon', coordinates: [square(lon, lat, overArea ? 0.06 : 0.1)] },
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

/** 100,000 requests of 100 operators (the listing one among them) written straight into the service's database. */
async function seedRequests(system: System, listingOperator: string): Promise<void> {
  const started = performance.now();
  const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database('flight-request-service') }).asPromise();
  try {
    const collection = connection.collection<{ _id: string }>('flight_requests');
    const operators = [listingOperator, ...Array.from({ length: OPERATORS_IN_STORE - 1 }, () => randomUUID())];
    const statuses = ['Pending', 'Approved', 'Rejected', 'Cancelled', 'Expired'] as const;
    const area = JSON.stringify(submission(listingOperator)['flight_area']);
    for (let offset = 0; offset < STORED_REQUESTS; offset += SEED_BATCH) {
      const batch = Array.from({ length: SEED_BATCH }, (_, index) => {
        const n = offset + index;
        const created = new Date(Date.now() - (STORED_REQUESTS - n) * 60_000);
        const start = new Date(created.getTime() + 2 * HOUR);
        const status = statuses[n % statuses.length]!;
        return {
          _id: randomUUID(),
          operator_uuid: operators[n % operators.length],
          status,
          operator_name: 'Bench Pilot',
          operator_email: 'pilot@example.com',
          operator_phone: '+1 555 0100',
          operator_company: null,
          operational_authorisation_number: null,
          start_time: start,
          end_time: new Date(start.getTime() + HOUR),
          max_altitude: 100,
          aircraft_type: 'multirotor',
          purpose: 'Seeded flight',
          area: { bbox: [4.89, 52.37, 4.9, 52.38], centroid: [4.895, 52.375], area_m2: 760_000, feature_count: 1 },
          bbox_west: 4.89,
          bbox_south: 52.37,
          bbox_east: 4.9,
          bbox_north: 52.38,
          flight_area_json: area,
          polygons_json: JSON.stringify((JSON.parse(area) as { features: unknown[] }).features),
          review: { findings: [], items: [], complete: true },
          review_authorities: [],
          cancellation: null,
          status_history: [{ status: 'Pending', at: created, actor: 'operator', reason: null }],
          idempotency: null,
          version: 0,
          outbox: [],
          created_at: created,
          updated_at: created,
        };
      });
      await collection.insertMany(batch, { ordered: false });
    }
  } finally {
    await connection.close();
  }
  LOG(`seeded ${STORED_REQUESTS} requests in ${round((performance.now() - started) / 1000, 1)} s`);
}

/**
 * One list call after another (the first page, 15 per page), for LIST_SECONDS
 * or LIST_SAMPLES calls, whichever comes first: a store that answers slowly
 * still yields figures instead of a run of timeouts.
 */
async function measureList(system: System, client: Client): Promise<Measured> {
  const url = `${system.gatewayUrl}/api/flight-requests?per_page=15`;
  const times: number[] = [];
  const failures: number[] = [];
  const deadline = performance.now() + LIST_SECONDS * 1000;
  while (times.length < LIST_SAMPLES && performance.now() < deadline) {
    const started = performance.now();
    const response = await fetch(url, { headers: { 'x-api-key': client.key } });
    const body = (await response.json()) as { meta?: { total?: number } };
    // A failed call counts with the time it took: a timeout is the slowest possible answer.
    if (response.status !== 200) failures.push(response.status);
    else if (times.length === 0) LOG(`list sees ${body.meta?.total} of the operator's requests`);
    times.push(performance.now() - started);
  }
  if (failures.length > 0) LOG(`list: ${failures.length} of ${times.length} calls failed (statuses ${[...new Set(failures)].join(', ')})`);
  const elapsed = times.reduce((sum, time) => sum + time, 0) / 1000;
  times.sort((a, b) => a - b);
  const measured = { requestsPerSecond: times.length / elapsed, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
  LOG(`list, ${STORED_REQUESTS} stored: ${times.length} calls, p50 ${round(measured.p50)} ms, p99 ${round(measured.p99)} ms`);
  return measured;
}

function measureSubmissions(label: string, system: System, client: Client): Promise<Measured> {
  const init = submitInit(client);
  return measure('flight-requests', label, { url: `${system.gatewayUrl}/api/flight-requests`, method: 'POST', headers: init.headers as Record<string, string>, body: init.body as string }, CONNECTIONS, SECONDS);
}

/** A warm-up, then the measured run; latency percentiles from every response's exact time. */
