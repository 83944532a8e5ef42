import mongoose, { type mongo } from 'mongoose';
import { flightRequestExample } from '@dfc/contracts';
import { COUNT_LIMIT, LIST_TIME_LIMIT_MS } from '@dfc/kit/pagination';
import { startSystem, type System } from '../e2e/src/system.js';
import { engineGroups, serviceGroup, untilQuiet } from './accounting.js';
import type { BenchSummary } from './run.js';
import { insertCopies, percentile, registerWithKey, round, type BenchClient as Client } from './support.js';

/**
 * An operator's first list page with 50,000 requests stored (goal: p50 <= 200 ms through the
 * gateway), beside the page and count MongoDB is sent, sent straight to the driver (the local
 * engine's list reads its list copies instead: engine-gaps.ts). The store is seeded directly
 * in the database as copies of a real submission (fast, and fair as a fixture): one operator
 * owns one request in a hundred (an operator among many), another owns the rest (the one
 * operator of the cost bench, whose store is all its own). BENCH_LIST_STORED and
 * BENCH_LIST_SAMPLES change the store size and the samples per figure.
 */
const STORED = Number(process.env['BENCH_LIST_STORED'] ?? 50_000);
const SAMPLES = Number(process.env['BENCH_LIST_SAMPLES'] ?? 30);
const GOAL_P50_MS = 200;
const PER_PAGE = 15;
/** The server's code for a query stopped at its `maxTimeMS`. */
const MAX_TIME_EXPIRED = 50;
const QUIET_MS_PER_SECOND = 150;
const QUIET_LIMIT_SECONDS = 300;
const LOG = (line: string) => process.stdout.write(`lists: ${line}\n`);

export default async function listsBench(): Promise<BenchSummary> {
  const system = await startSystem({
    compiled: true,
    services: ['operator-service', 'flight-request-service', 'gateway'],
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
  });
  const connection = await mongoose.createConnection(system.mongoUrl, { dbName: system.database('flight-request-service') }).asPromise();
  try {
    const few = await registerWithKey(system);
    const many = await registerWithKey(system);
    const requests = connection.db!.collection('flight_requests');
    await submitOne(system, few);
    const template = await requests.findOne({ operator_uuid: few.uuid });
    if (!template) throw new Error('no stored request to copy');
    await seed(requests, template, STORED - (await requests.countDocuments()), few.uuid, many.uuid);
    // A store seeded straight into the database, as one restored from a backup: copied for the lists as the service starts.
    const restarted = performance.now();
    await system.kill('flight-request-service', 'SIGTERM');
    await system.start('flight-request-service');
    LOG(`flight-request-service restarted (its list copies reconciled) in ${round((performance.now() - restarted) / 1000, 1)} s`);
    // A replica's first sweeps read every stored request once (engine-gaps findUpTo): the figures are a running replica's.
    const quiet = await untilQuiet(
      [serviceGroup('flight-request-service', () => system.pid('flight-request-service')), ...engineGroups()],
      QUIET_MS_PER_SECOND,
      QUIET_LIMIT_SECONDS,
    );
    LOG(`its start-up sweeps went quiet after ${round(quiet.seconds, 0)} s`);
    const lines: string[] = [];
    let met = true;
    for (const [label, client] of [
      ['an operator owning 1 in 100', few],
      ['an operator owning 99 in 100', many],
    ] as const) {
      const figure = await measure(system, requests, client);
      const ok = figure.gateway <= GOAL_P50_MS;
      met &&= ok;
      const line =
        `first page at ${STORED} stored, ${label} (${figure.total} counted): gateway p50 ${round(figure.gateway)} ms, p99 ${round(figure.gatewayP99)} ms ` +
        `(goal p50 <= ${GOAL_P50_MS}) ${ok ? 'OK' : 'MISSED'}; driver-direct p50 ` +
        (Number.isFinite(figure.driver) ? `${round(figure.driver)} ms` : `over the ${LIST_TIME_LIMIT_MS / 1000} s query limit`);
      LOG(line);
      lines.push(line);
    }
    return { lines, goalsMet: met };
  } finally {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await system.stop();
  }
}

/** One real submission through the gateway: the template of the seeded copies. */
async function submitOne(system: System, client: Client): Promise<void> {
  const body = flightRequestExample({ operatorUuid: client.uuid, operatorEmail: client.email });
  const answer = await fetch(`${system.gatewayUrl}/api/flight-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': client.key },
    body: JSON.stringify(body),
  });
  if (answer.status !== 201) throw new Error(`the template submission failed: ${answer.status} ${await answer.text()}`);
}

/** Copies of a stored request, created before the real ones; every 100th is `few`'s, the others `many`'s. */
async function seed(collection: mongo.Collection, template: mongo.Document, count: number, few: string, many: string): Promise<void> {
  const started = performance.now();
  const oldest = Date.now() - 3_600_000;
  await insertCopies(collection, template, count, (copy, n) => {
    copy['operator_uuid'] = n % 100 === 0 ? few : many;
    const created = new Date(oldest - n * 1000);
    copy['created_at'] = created;
    copy['updated_at'] = created;
  });
  LOG(`seeded ${count} requests in ${round((performance.now() - started) / 1000, 1)} s`);
}

/** The first page through the gateway, and the list's own queries (page and bounded count) by the driver, in turns. */
async function measure(
  system: System,
  requests: mongo.Collection,
  client: Client,
): Promise<{ gateway: number; gatewayP99: number; driver: number; total: number }> {
  const gateway: number[] = [];
  const driver: number[] = [];
  let total = 0;
  const filter = { operator_uuid: client.uuid, status: { $ne: 'Screening' } };
  for (let sample = 0; sample < SAMPLES; sample++) {
    let started = performance.now();
    const answer = await fetch(`${system.gatewayUrl}/api/flight-requests?per_page=${PER_PAGE}`, { headers: { 'x-api-key': client.key } });
    const body = (await answer.json()) as { meta?: { total?: number } };
    if (answer.status !== 200) throw new Error(`list: ${answer.status} ${JSON.stringify(body)}`);
    gateway.push(performance.now() - started);
    total = body.meta?.total ?? 0;
    started = performance.now();
    try {
      await Promise.all([
        requests
          .find(filter, { projection: { flight_area_json: 0, polygons_json: 0, outbox: 0, outbox_pending_since: 0 } })
          .sort({ created_at: -1, _id: -1 })
          .limit(PER_PAGE + 1)
          .maxTimeMS(LIST_TIME_LIMIT_MS)
          .toArray(),
        requests.countDocuments(filter, { limit: COUNT_LIMIT, maxTimeMS: LIST_TIME_LIMIT_MS }),
      ]);
      driver.push(performance.now() - started);
    } catch (error) {
      if ((error as { code?: unknown }).code !== MAX_TIME_EXPIRED) throw error;
      driver.push(Infinity);
    }
  }
  gateway.sort((a, b) => a - b);
  driver.sort((a, b) => a - b);
  return { gateway: percentile(gateway, 0.5), gatewayP99: percentile(gateway, 0.99), driver: percentile(driver, 0.5), total };
}
