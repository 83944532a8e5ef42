import { InternalTokenSigner } from '@dfc/kit/http';
import { startSystem, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import { measure, round } from './support.js';

/**
 * What the gateway costs: the same authenticated read, `GET /api/operators/{uuid}`,
 * through the gateway (key check, rate limit, token, proxy) and straight to the
 * operator-service with a valid internal token.
 *
 * - Throughput: 10 connections for 10 s each, after a 2 s warm-up; goal
 *   gateway/direct >= 0.5.
 * - Added latency: one connection (no queueing, so the difference is the
 *   gateway's own work and hop), exact per-response times; goal p50 <= 2 ms.
 */
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const LATENCY_SECONDS = Number(process.env['BENCH_LATENCY_SECONDS'] ?? 5);
const GOAL_RATIO = 0.5;
const GOAL_ADDED_P50_MS = 2;

interface Target {
  url: string;
  headers: Record<string, string>;
}

export default async function gatewayBench(): Promise<BenchSummary> {
  const system = await startSystem({
    compiled: true,
    services: ['operator-service', 'gateway'],
    // The per-key limit is not under test here; the default would cut the run short.
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn' },
  });
  try {
    const { uuid, key, keyId } = await registerWithKey(system);
    const gateway: Target = { url: `${system.gatewayUrl}/api/operators/${uuid}`, headers: { 'x-api-key': key } };
    const direct = async (): Promise<Target> => ({
      url: `${system.url('operator-service')}/api/operators/${uuid}`,
      // Signed just before each run: tokens live 60 s.
      headers: {
        'x-internal-token': await new InternalTokenSigner(system.privateKeyPem).sign({
          sub: uuid,
          role: 'operator',
          operator_uuid: uuid,
          key_id: keyId,
        }),
      },
    });

    const directLoad = await measure('gateway', 'direct, load', await direct(), CONNECTIONS, SECONDS);
    const gatewayLoad = await measure('gateway', 'gateway, load', gateway, CONNECTIONS, SECONDS);
    const directSingle = await measure('gateway', 'direct, 1 connection', await direct(), 1, LATENCY_SECONDS);
    const gatewaySingle = await measure('gateway', 'gateway, 1 connection', gateway, 1, LATENCY_SECONDS);

    const ratio = gatewayLoad.requestsPerSecond / directLoad.requestsPerSecond;
    const addedP50 = gatewaySingle.p50 - directSingle.p50;
    const addedP99 = gatewaySingle.p99 - directSingle.p99;
    const lines = [
      `throughput (${CONNECTIONS} connections, ${SECONDS} s): gateway ${round(gatewayLoad.requestsPerSecond, 0)} req/s, direct ${round(directLoad.requestsPerSecond, 0)} req/s`,
      `throughput ratio gateway/direct: ${round(ratio, 2)} (goal >= ${GOAL_RATIO}) ${ratio >= GOAL_RATIO ? 'OK' : 'MISSED'}`,
      `latency under load p50/p99: gateway ${round(gatewayLoad.p50)}/${round(gatewayLoad.p99)} ms, direct ${round(directLoad.p50)}/${round(directLoad.p99)} ms`,
      `latency added by the gateway (1 connection) p50: ${round(addedP50)} ms (goal <= ${GOAL_ADDED_P50_MS} ms) ${addedP50 <= GOAL_ADDED_P50_MS ? 'OK' : 'MISSED'}, p99: ${round(addedP99)} ms`,
      `  (1 connection p50/p99: gateway ${round(gatewaySingle.p50)}/${round(gatewaySingle.p99)} ms, direct ${round(directSingle.p50)}/${round(directSingle.p99)} ms)`,
    ];
    for (const line of lines) process.stdout.write(`gateway: ${line}\n`);
    return { lines, goalsMet: ratio >= GOAL_RATIO && addedP50 <= GOAL_ADDED_P50_MS };
  } finally {
    await system.stop();
  }
}

async function registerWithKey(system: System): Promise<{ uuid: string; key: string; keyId: string }> {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'benchmark-password';
  const registered = await fetch(`${system.gatewayUrl}/api/operators`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ company_name: 'Bench Aerial', email, password, phone: '+1 555 0100' }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${await registered.text()}`);
  const { data } = (await registered.json()) as { data: { uuid: string } };
  const issued = await fetch(`${system.gatewayUrl}/api/operators/${data.uuid}/api-keys`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
  if (issued.status !== 201) throw new Error(`key issuance failed: ${issued.status} ${await issued.text()}`);
  const key = (await issued.json()) as { data: { key: string; id: string } };
  return { uuid: data.uuid, key: key.data.key, keyId: key.data.id };
}

/** A warm-up, then the measured run; latency percentiles from every response's exact time. */
