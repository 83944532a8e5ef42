import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { flightRequestExample } from '@dfc/contracts';
import { startSystem, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import { measure, round } from './support.js';

/**
 * Deconfliction's cost: submission throughput through the gateway with
 * BENCH_DECONFLICTION_FLIGHTS (10,000) Approved flights of another operator in
 * the neighbourhood — over the hours and kilometres around the submissions,
 * in the same ledger cells — ÷ the same in an empty neighbourhood, each on a
 * fresh system in one run (goal >= 0.8). Every submission is approved, so each
 * reserves its airspace on the ledger among the neighbours' claims.
 */
const FLIGHTS = Number(process.env['BENCH_DECONFLICTION_FLIGHTS'] ?? 10_000);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const SEED_CONCURRENCY = 8;
const GOAL_RATIO = 0.8;
const HOUR = 3_600_000;
/** The submissions' square: a neighbourhood of Amsterdam; the seeded flights surround it without touching it. */
const CORNER: [number, number] = [4.89, 52.37];
const SIDE = 0.002;
const LOG = (line: string) => process.stdout.write(`deconfliction: ${line}\n`);

interface Client {
  uuid: string;
  email: string;
  key: string;
}

export default async function deconflictionBench(): Promise<BenchSummary> {
  // Half a day ahead, so that the neighbours' windows over the 24 hours around it are all still to come.
  const start = new Date(Math.ceil((Date.now() + 14 * HOUR) / HOUR) * HOUR);
  const empty = await withSystem(async (system) => measureSubmissions('empty neighbourhood', system, await registerWithKey(system), start));
  const crowded = await withSystem(async (system) => {
    await seedNeighbours(system, await registerWithKey(system), start);
    return measureSubmissions(`${FLIGHTS} approved neighbours`, system, await registerWithKey(system), start);
  });
  const ratio = crowded.requestsPerSecond / empty.requestsPerSecond;
  const line =
    `submissions with ${FLIGHTS} approved flights around ÷ none = ${round(ratio)} (goal >= ${GOAL_RATIO}) ${ratio >= GOAL_RATIO ? 'OK' : 'MISSED'}` +
    ` [${round(crowded.requestsPerSecond, 0)} vs ${round(empty.requestsPerSecond, 0)} req/s]`;
  LOG(line);
  return { lines: [line], goalsMet: ratio >= GOAL_RATIO };
}

async function withSystem<T>(work: (system: System) => Promise<T>): Promise<T> {
  const system = await startSystem({
    compiled: true,
    services: ['operator-service', 'flight-request-service', 'gateway'],
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
  });
  try {
    return await work(system);
  } finally {
    await system.stop();
    for (const service of ['operator-service', 'flight-request-service'] as const) {
      const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database(service) }).asPromise();
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
    }
  }
}

async function registerWithKey(system: System): Promise<Client> {
  const email = `bench-${randomUUID()}@example.com`;
  const password = 'benchmark-password';
  const registered = await post(system, '/api/operators', { company_name: 'Bench Aerial', email, password, phone: '+1 555 0100' });
  const { uuid } = ((await registered.json()) as { data: { uuid: string } }).data;
  const issued = await fetch(`${system.gatewayUrl}/api/operators/${uuid}/api-keys`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
  if (issued.status !== 201) throw new Error(`key issuance failed: ${issued.status} ${await issued.text()}`);
  return { uuid, email, key: ((await issued.json()) as { data: { key: string } }).data.key };
}

function post(system: System, path: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${system.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(body),
  });
}

function body(client: Client, corner: [number, number], start: Date, hours: number): Record<string, unknown> {
  return flightRequestExample({
    operatorUuid: client.uuid,
    operatorEmail: client.email,
    start,
    end: new Date(start.getTime() + hours * HOUR),
    corner,
    side: SIDE,
  });
}

/**
 * The neighbours: squares on a grid around the submissions' square (never on
 * it), one or two hours long, over the 24 hours around the submissions' window.
 */
async function seedNeighbours(system: System, neighbour: Client, start: Date): Promise<void> {
  const started = performance.now();
  let next = 0;
  const seedOne = async (index: number) => {
    const ring = 1 + (index % 20);
    const angle = (index * 2.399963) % (2 * Math.PI);
    const corner: [number, number] = [CORNER[0] + Math.cos(angle) * ring * 0.003, CORNER[1] + Math.sin(angle) * ring * 0.002];
    const when = new Date(start.getTime() + (((index * 7) % 24) - 12) * HOUR);
    const answer = await post(system, '/api/flight-requests', body(neighbour, corner, when, 1 + (index % 2)), neighbour.key);
    if (answer.status !== 201) throw new Error(`seeding failed: ${answer.status} ${(await answer.text()).slice(0, 300)}`);
  };
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < FLIGHTS) await seedOne(next++);
    }),
  );
  LOG(`seeded ${FLIGHTS} approved neighbours in ${round((performance.now() - started) / 1000, 1)} s`);
}

function measureSubmissions(label: string, system: System, client: Client, start: Date) {
  return measure(
    'deconfliction',
    label,
    {
      url: `${system.gatewayUrl}/api/flight-requests`,
      method: 'POST',
      headers: { 'x-api-key': client.key, 'content-type': 'application/json' },
      body: JSON.stringify(body(client, CORNER, start, 2)),
    },
    CONNECTIONS,
    SECONDS,
  );
}
