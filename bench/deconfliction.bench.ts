import { boxRing, flightRequestExample } from '@dfc/contracts';
import type { System } from '../e2e/src/system.js';
import { costPerUnit, engineGroups, serviceGroup, untilQuiet } from './accounting.js';
import type { BenchSummary } from './run.js';
import { measure, registerWithKey, round, SUBMISSION_SERVICES, withSystem, type BenchClient } from './support.js';

/**
 * Deconfliction's cost: submission throughput through the gateway with
 * BENCH_DECONFLICTION_FLIGHTS (10,000) Approved flights of another operator in
 * the neighbourhood — over the hours and kilometres around the submissions,
 * in the same ledger cells — ÷ the same in an empty neighbourhood, each on a
 * fresh system in one run (goal >= 0.8). Every submission is approved, so each
 * reserves its airspace on the ledger among the neighbours' claims.
 *
 * Two figures: flights of the spec's fields (one area from the ground up; the
 * neighbours surround the submissions' square), and flights of 2–3 volumes at
 * different bands and windows, half of the neighbours over the submissions'
 * very square at bands between theirs, so that every claim in the shared cells
 * is judged in all four dimensions.
 *
 * BENCH_DECONFLICTION_ONLY runs the scenario whose name contains it alone ("ground", "bands").
 *
 * Each measurement waits for the machine to go quiet first (the engine's upkeep
 * after seeding 10,000 flights would otherwise share the cores), and reports
 * the CPU each service and engine spent per submission beside the throughput.
 */
const FLIGHTS = Number(process.env['BENCH_DECONFLICTION_FLIGHTS'] ?? 10_000);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const SEED_CONCURRENCY = 8;
const GOAL_RATIO = 0.8;
/** Each measurement starts once the services and engines spend under this much CPU a second (the seeding's after-work done), waiting at most QUIET_LIMIT_SECONDS. */
const QUIET_MS_PER_SECOND = 150;
const QUIET_LIMIT_SECONDS = 300;
const HOUR = 3_600_000;
/** The submissions' square: a neighbourhood of Amsterdam. */
const CORNER: [number, number] = [4.89, 52.37];
const SIDE = 0.002;
const LOG = (line: string) => process.stdout.write(`deconfliction: ${line}\n`);

/** One flight's body: what a neighbour (by its index) or a submission sends. */
interface Scenario {
  name: string;
  neighbour(client: BenchClient, index: number, start: Date): Record<string, unknown>;
  submission(client: BenchClient, start: Date): Record<string, unknown>;
}

interface Band {
  lower: number;
  upper: number;
}

export default async function deconflictionBench(): Promise<BenchSummary> {
  // Half a day ahead, so that the neighbours' windows over the 24 hours around it are all still to come.
  const start = new Date(Math.ceil((Date.now() + 14 * HOUR) / HOUR) * HOUR);
  const only = process.env['BENCH_DECONFLICTION_ONLY'];
  const figures: Array<{ line: string; met: boolean }> = [];
  for (const scenario of [SPEC_FIELDS, SEVERAL_BANDS]) if (!only || scenario.name.includes(only)) figures.push(await figure(scenario, start));
  return { lines: figures.map((one) => one.line), goalsMet: figures.every((one) => one.met) };
}

async function figure(scenario: Scenario, start: Date): Promise<{ line: string; met: boolean }> {
  const empty = await withSystem(async (system) => measureSubmissions(`${scenario.name}, empty neighbourhood`, system, scenario, start));
  const crowded = await withSystem(async (system) => {
    await seedNeighbours(system, scenario, await registerWithKey(system), start);
    return measureSubmissions(`${scenario.name}, ${FLIGHTS} approved neighbours`, system, scenario, start);
  });
  const ratio = crowded.requestsPerSecond / empty.requestsPerSecond;
  const line =
    `${scenario.name}: submissions with ${FLIGHTS} approved flights around ÷ none = ${round(ratio)} (goal >= ${GOAL_RATIO}) ` +
    `${ratio >= GOAL_RATIO ? 'OK' : 'MISSED'} [${round(crowded.requestsPerSecond, 0)} vs ${round(empty.requestsPerSecond, 0)} req/s]`;
  LOG(line);
  return { line, met: ratio >= GOAL_RATIO };
}

/** Squares on a grid around the submissions' square (never on it), the `index`-th of them. */
function around(index: number): [number, number] {
  const ring = 2 + (index % 20);
  const angle = (index * 2.399963) % (2 * Math.PI);
  return [CORNER[0] + Math.cos(angle) * ring * 0.003, CORNER[1] + Math.sin(angle) * ring * 0.002];
}

/** A window within the 24 hours around the submissions' window. */
function hourAround(start: Date, index: number): Date {
  return new Date(start.getTime() + (((index * 7) % 24) - 12) * HOUR);
}

function plainBody(client: BenchClient, corner: [number, number], start: Date, hours: number): Record<string, unknown> {
  return flightRequestExample({
    operatorUuid: client.uuid,
    operatorEmail: client.email,
    start,
    end: new Date(start.getTime() + hours * HOUR),
    corner,
    side: SIDE,
  });
}

/** A body of volumes, each a square, a band in metres above the ground and an hour from its start. */
function volumesBody(client: BenchClient, volumes: Array<{ corner: [number, number]; band: Band; start: Date }>): Record<string, unknown> {
  const { flight_area: _area, start_time: _start, end_time: _end, max_altitude: _ceiling, ...fields } = plainBody(client, CORNER, new Date(), 1);
  return {
    ...fields,
    volumes: volumes.map(({ corner, band, start }) => ({
      geometry: { type: 'Polygon', coordinates: [boxRing(corner, SIDE)] },
      altitude_lower: { value: band.lower, reference: 'AGL', units: 'm' },
      altitude_upper: { value: band.upper, reference: 'AGL', units: 'm' },
      start_time: utcSeconds(start),
      end_time: utcSeconds(new Date(start.getTime() + HOUR)),
    })),
  };
}

function utcSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

const SPEC_FIELDS: Scenario = {
  name: 'one area from the ground',
  neighbour: (client, index, start) => plainBody(client, around(index), hourAround(start, index), 1 + (index % 2)),
  submission: (client, start) => plainBody(client, CORNER, start, 2),
};

/** The submissions fly 0–40 m in their first hour and 60–100 m in their second; neighbours over them keep between and above. */
const SUBMISSION_BANDS: Band[] = [
  { lower: 0, upper: 40 },
  { lower: 60, upper: 100 },
];
const BETWEEN_BANDS: Band[] = [
  { lower: 40, upper: 60 },
  { lower: 100, upper: 120 },
];

const SEVERAL_BANDS: Scenario = {
  name: 'volumes of several bands',
  neighbour: (client, index, start) => {
    const count = 2 + (index % 2);
    const first = hourAround(start, index);
    return volumesBody(
      client,
      Array.from({ length: count }, (_, volume) => ({
        // Even neighbours over the submissions' square between their bands, odd ones around it at any band.
        corner: index % 2 === 0 ? CORNER : around(index + volume),
        band: index % 2 === 0 ? (BETWEEN_BANDS[volume % 2] as Band) : { lower: 20 * volume, upper: 20 * volume + 50 },
        start: new Date(first.getTime() + volume * HOUR),
      })),
    );
  },
  submission: (client, start) =>
    volumesBody(
      client,
      SUBMISSION_BANDS.map((band, volume) => ({ corner: CORNER, band, start: new Date(start.getTime() + volume * HOUR) })),
    ),
};

async function seedNeighbours(system: System, scenario: Scenario, neighbour: BenchClient, start: Date): Promise<void> {
  const started = performance.now();
  let next = 0;
  const seedOne = async (index: number) => {
    const answer = await post(system, '/api/flight-requests', scenario.neighbour(neighbour, index, start), neighbour.key);
    const text = await answer.text();
    if (answer.status !== 201) throw new Error(`seeding failed: ${answer.status} ${text.slice(0, 300)}`);
    const status = (JSON.parse(text) as { data: { status: string } }).data.status;
    if (status !== 'Approved') throw new Error(`a neighbour was not approved (${status}): ${text.slice(0, 300)}`);
  };
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < FLIGHTS) await seedOne(next++);
    }),
  );
  LOG(`${scenario.name}: seeded ${FLIGHTS} approved neighbours in ${round((performance.now() - started) / 1000, 1)} s`);
}

function post(system: System, path: string, body: unknown, key: string): Promise<Response> {
  return fetch(`${system.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
}

async function measureSubmissions(label: string, system: System, scenario: Scenario, start: Date) {
  const client = await registerWithKey(system);
  const body = scenario.submission(client, start);
  const first = await post(system, '/api/flight-requests', body, client.key);
  const status = first.status === 201 ? (JSON.parse(await first.text()) as { data: { status: string } }).data.status : String(first.status);
  if (status !== 'Approved') throw new Error(`${label}: the submission is not approved (${status})`);
  const groups = [...SUBMISSION_SERVICES.map((name) => serviceGroup(name, () => system.pid(name))), ...engineGroups()];
  const quiet = await untilQuiet(groups, QUIET_MS_PER_SECOND, QUIET_LIMIT_SECONDS);
  let measured: Awaited<ReturnType<typeof measure>> | undefined;
  const cost = await costPerUnit(groups, async () => {
    measured = await measure(
      'deconfliction',
      label,
      {
        url: `${system.gatewayUrl}/api/flight-requests`,
        method: 'POST',
        headers: { 'x-api-key': client.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      CONNECTIONS,
      SECONDS,
    );
    return Math.round(measured.requestsPerSecond * SECONDS);
  });
  const spent = [...cost.msPerUnit].map(([name, ms]) => `${name} ${round(ms, 1)}`).join(', ');
  LOG(`${label}: quiet after ${round(quiet.seconds, 0)} s; CPU ms per submission (warm-up included): ${spent}`);
  return measured!;
}
