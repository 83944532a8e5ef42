import { boxRing } from '@dfc/contracts';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../e2e/src/client.js';
import { startSystem, type System } from '../e2e/src/system.js';
import { costPerUnit, engineGroups, serviceGroup, untilQuiet } from './accounting.js';
import type { BenchSummary } from './run.js';
import { measure, round } from './support.js';

/**
 * Issue 53's figures, through the gateway, from one run on the compiled services:
 *
 * (a) a national dataset as one ED-318 document: ZONES zones (polygons of VERTICES
 *     vertices, names in three languages, a third with daily schedules, a third
 *     with AMSL limits), about 10 MB, imported in one request: the seconds it took,
 *     and the share of the CPU spent meanwhile that was the database engine's
 *     (FerretDB + PostgreSQL, or mongod) and the broker's (reported);
 * (b) submission throughput with those zones loaded against none, in one run
 *     (goal >= 0.9): first in an area before any zone exists, then, once the
 *     import's rescreening has gone quiet, in another area of the dataset where
 *     the flight meets a few zones. Each phase flies in an area of its own, so
 *     neither reads the other's approved flights.
 */
const ZONES = Number(process.env['BENCH_AIRSPACE_ZONES'] ?? 5000);
const VERTICES = 64;
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 8);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const GOAL_RATIO = 0.9;
/**
 * The dataset covers [5, 15] × [45, 50]; the first phase flies before it exists, the second where four of its
 * zones meet the area (a 0.06° square between their centres), each in an area of its own.
 */
const BEFORE_CORNER: [number, number] = [6.37, 47.37];
const WITH_CORNER: [number, number] = [9.37, 47.37];
const SIDE = 0.06;
const QUIET_MS_PER_SECOND = 150;
const QUIET_LIMIT_SECONDS = 600;
const LOG = (line: string) => process.stdout.write(`airspace: ${line}\n`);

export default async function airspaceBench(): Promise<BenchSummary> {
  const system = await startSystem({
    compiled: true,
    services: ['operator-service', 'flight-request-service', 'gateway'],
    // The local engine writes a national dataset in about a minute, past the gateway's 30 s: the figure is the import's, whatever it takes.
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', UPSTREAM_TIMEOUT_MS: '600000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
  });
  try {
    const gateway = new GatewayClient(system.gatewayUrl);
    const operator = await gateway.registerOperatorWithKey();
    await untilKnown(gateway, operator);
    const without = await submissions(system, operator, BEFORE_CORNER, 'submission, no zones');

    const document = nationalDataset();
    const body = JSON.stringify(document);
    const groups = [
      serviceGroup('gateway', () => system.pid('gateway')),
      serviceGroup('flight-request-service', () => system.pid('flight-request-service')),
      ...engineGroups(),
    ];
    let answered = 0;
    const imported = await costPerUnit(groups, async () => {
      const answer = await gateway.send('POST', '/api/zones/import', { key: system.adminKey, body: document });
      if (answer.status !== 200) throw new Error(`the import answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`);
      answered = (answer.body as { data: { created: number } }).data.created;
      return 1;
    });
    const cpu = [...imported.msPerUnit.entries()];
    const total = cpu.reduce((sum, [, ms]) => sum + ms, 0);
    const engine = cpu.filter(([name]) => name !== 'gateway' && name !== 'flight-request-service').reduce((sum, [, ms]) => sum + ms, 0);
    const waited = await untilQuiet(groups, QUIET_MS_PER_SECOND, QUIET_LIMIT_SECONDS);
    LOG(`the import's rescreening went quiet after ${round(waited.seconds, 0)} s`);
    const withZones = await submissions(system, operator, WITH_CORNER, `submission, ${ZONES} zones loaded (4 met)`);

    const ratio = withZones / without;
    const lines = [
      `ED-318 import of ${answered} zones, ${round(Buffer.byteLength(body) / 1e6, 1)} MB: ${round(imported.seconds, 1)} s, ` +
        `the engines ${round((100 * engine) / Math.max(1, total), 0)} % of its CPU (${cpu.map(([name, ms]) => `${name} ${round(ms / 1000, 1)} s`).join(', ')}) (reported)`,
      `submission throughput with ${ZONES} zones / with none = ${round(ratio)} (goal >= ${GOAL_RATIO}) ${ratio >= GOAL_RATIO ? 'OK' : 'MISSED'}` +
        ` [${round(withZones, 0)} vs ${round(without, 0)} req/s]`,
    ];
    for (const line of lines) LOG(line);
    return { lines, goalsMet: ratio >= GOAL_RATIO };
  } finally {
    await system.stop();
  }
}

function bodyAt(operator: RegisteredOperator, corner: [number, number]): Record<string, unknown> {
  return flightRequestBody(operator, {
    flight_area: {
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [boxRing(corner, SIDE)] } }],
    },
  });
}

async function submissions(system: System, operator: RegisteredOperator, corner: [number, number], label: string): Promise<number> {
  const measured = await measure(
    'airspace',
    label,
    {
      url: `${system.gatewayUrl}/api/flight-requests`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': operator.key },
      body: JSON.stringify(bodyAt(operator, corner)),
    },
    CONNECTIONS,
    SECONDS,
  );
  return measured.requestsPerSecond;
}

async function untilKnown(gateway: GatewayClient, operator: RegisteredOperator): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await gateway.send('POST', '/api/flight-requests/preview', { key: operator.key, body: bodyAt(operator, BEFORE_CORNER) });
    if (answer.status === 200) return;
    if (Date.now() > deadline) throw new Error(`operator never became known: ${answer.status} ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A country's worth of zones on a 100 × 50 grid over [5, 15] × [45, 50]: each a 0.08° circle-like polygon,
 * CONDITIONAL (a finding, no review item: the flights stay Approved), so the figure is screening's cost.
 */
function nationalDataset(): Record<string, unknown> {
  const features = Array.from({ length: ZONES }, (_, index) => {
    const [lon, lat] = [5.05 + (index % 100) * 0.1, 45.05 + Math.floor(index / 100) * 0.1];
    const ring = Array.from({ length: VERTICES }, (_, k) => {
      const angle = (2 * Math.PI * k) / VERTICES;
      return [Number((lon + 0.04 * Math.cos(angle)).toFixed(7)), Number((lat + 0.04 * Math.sin(angle)).toFixed(7))];
    });
    const amsl = index % 3 === 1;
    const scheduled = index % 3 === 2;
    const name = (lang: string, prefix: string) => ({ text: `${prefix} ${index}`, lang });
    return {
      type: 'Feature',
      geometry: {
        type: 'Polygon',
        coordinates: [[...ring, ring[0]]],
        layer: amsl
          ? { upper: 5000, upperReference: 'AMSL', lower: 0, lowerReference: 'AGL', uom: 'ft' }
          : { upper: 150, upperReference: 'AGL', lower: 0, lowerReference: 'AGL', uom: 'm' },
      },
      properties: {
        identifier: `B${String(index).padStart(6, '0')}`,
        country: 'CHE',
        name: [name('de-CH', 'Zone'), name('fr-CH', 'Zone'), name('en-GB', 'Zone')],
        type: 'CONDITIONAL',
        variant: 'COMMON',
        reason: ['NATURE'],
        message: [{ text: 'Keep clear of wildlife.', lang: 'en-GB' }],
        zoneAuthority: [{ name: [{ text: 'FOCA', lang: 'en-GB' }], purpose: 'INFORMATION', email: 'zones@example.org' }],
        ...(scheduled ? { limitedApplicability: [{ schedule: [{ day: ['ANY'], startEvent: 'SR', endEvent: 'SS' }] }] } : {}),
      },
    };
  });
  return {
    type: 'FeatureCollection',
    metadata: { provider: [{ text: 'Bench national dataset', lang: 'en-GB' }], issued: new Date().toISOString() },
    features,
  };
}
