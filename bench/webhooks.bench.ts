import { randomUUID } from 'node:crypto';
import { Agent, createServer, request, type Server } from 'node:http';
import { Broker, newEvent } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { InternalTokenSigner } from '@dfc/kit/http';
import { RoutingKeys, signWebhookPayload, type FlightRequestStatusChanged, type Principal } from '@dfc/contracts';
import { startSystem, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import { percentile, round } from './support.js';

/**
 * What the webhook pipeline costs, with webhook-service as its own process
 * on the real database and broker, delivering to a receiver in this process
 * that answers 200 at once:
 *
 * - Throughput: EVENTS status_change events fanned out to ENDPOINTS endpoints
 *   (per-endpoint limit 4, so ENDPOINTS × 4 attempts in flight at most),
 *   deliveries per second from the first publish to the last arrival, divided
 *   by a bare HTTP POST loop (same body, same receiver, same concurrency,
 *   keep-alive). Goal >= 0.5.
 * - Latency: RATE events per second for LATENCY_SECONDS to one endpoint; the
 *   time from publishing the domain event (the state change) to the webhook
 *   arriving. Goal p99 <= 250 ms.
 *
 * Sizes are modest by default (BENCH_WEBHOOK_EVENTS, _ENDPOINTS, _RATE,
 * BENCH_LATENCY_SECONDS to change them): on the local FerretDB/SQLite stack
 * every write scans its collection, so figures fall as the delivery log grows.
 */
const EVENTS = Number(process.env['BENCH_WEBHOOK_EVENTS'] ?? 100);
const ENDPOINTS = Number(process.env['BENCH_WEBHOOK_ENDPOINTS'] ?? 2);
const PER_ENDPOINT = 4;
const RATE = Number(process.env['BENCH_WEBHOOK_RATE'] ?? 10);
const LATENCY_SECONDS = Number(process.env['BENCH_LATENCY_SECONDS'] ?? 10);
const GOAL_RATIO = 0.5;
const GOAL_P99_MS = 250;

export default async function webhooksBench(): Promise<BenchSummary> {
  const receiver = await startReceiver();
  const system = await startSystem({
    services: ['webhook-service'],
    env: {
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
      WEBHOOK_MAX_IN_FLIGHT: '64',
    },
  });
  const log = createLogger('webhooks-bench', 'warn');
  const broker = await Broker.connect(system.amqpUrl, system.exchange, log);
  try {
    const operatorUuid = randomUUID();
    const principal: Principal = { sub: operatorUuid, role: 'operator', operator_uuid: operatorUuid, key_id: 'bench' };
    const signer = new InternalTokenSigner(system.privateKeyPem);
    const throughputOperator = operatorUuid;
    for (let index = 0; index < ENDPOINTS; index++) await register(system, signer, principal, `${receiver.url}/throughput/${index}`);

    // Warm-up: connections, JIT, the queue.
    await deliverAll(broker, receiver, throughputOperator, 20, ENDPOINTS);

    const concurrency = ENDPOINTS * PER_ENDPOINT;
    const pipeline = await deliverAll(broker, receiver, throughputOperator, EVENTS, ENDPOINTS);
    const sampleBody = JSON.stringify({ id: randomUUID(), event: 'status_change', created_at: new Date().toISOString(), data: statusData(operatorUuid) });
    const bare = await bareLoop(`${receiver.url}/bare`, sampleBody, EVENTS * ENDPOINTS, concurrency);
    const ratio = pipeline / bare;
    process.stdout.write(`webhooks: throughput: ${round(pipeline, 0)} deliveries/s vs bare POST loop ${round(bare, 0)} req/s (concurrency ${concurrency})\n`);

    const latencyOperator = randomUUID();
    await register(system, signer, { sub: latencyOperator, role: 'operator', operator_uuid: latencyOperator, key_id: 'bench' }, `${receiver.url}/latency`);
    const latencies = await steadyLatency(broker, receiver, latencyOperator);
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);

    const lines = [
      `throughput: ${round(pipeline, 0)} deliveries/s (${EVENTS} events × ${ENDPOINTS} endpoints), bare POST loop ${round(bare, 0)} req/s, concurrency ${concurrency}`,
      `throughput ratio webhooks/bare: ${round(ratio, 2)} (goal >= ${GOAL_RATIO}) ${ratio >= GOAL_RATIO ? 'OK' : 'MISSED'}`,
      `event published → webhook arrived at ${RATE}/s for ${LATENCY_SECONDS} s: p50 ${round(p50)} ms, p99 ${round(p99)} ms (goal p99 <= ${GOAL_P99_MS} ms) ${p99 <= GOAL_P99_MS ? 'OK' : 'MISSED'}`,
    ];
    for (const line of lines) process.stdout.write(`webhooks: ${line}\n`);
    return { lines, goalsMet: ratio >= GOAL_RATIO && p99 <= GOAL_P99_MS };
  } finally {
    await broker.close();
    await system.stop();
    await receiver.close();
  }
}

interface BenchReceiver {
  url: string;
  /** Arrival time (performance.now) of each webhook, by event id and path. */
  arrivals: Map<string, number>;
  count: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<BenchReceiver> {
  const state = { count: 0, arrivals: new Map<string, number>() };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.count++;
      const id = req.headers['x-webhook-id'];
      if (typeof id === 'string') state.arrivals.set(`${id} ${req.url}`, performance.now());
      res.end('ok');
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function register(system: System, signer: InternalTokenSigner, principal: Principal, url: string): Promise<void> {
  const response = await fetch(`${system.url('webhook-service')}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-token': await signer.sign(principal) },
    body: JSON.stringify({ url, events: ['status_change'] }),
  });
  if (response.status !== 201) throw new Error(`endpoint registration failed: ${response.status} ${await response.text()}`);
}

function statusData(operatorUuid: string): FlightRequestStatusChanged {
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

/** Publishes `events` events and waits until every fanned-out delivery arrived; deliveries per second. */
async function deliverAll(broker: Broker, receiver: BenchReceiver, operatorUuid: string, events: number, endpoints: number): Promise<number> {
  const expected = receiver.count + events * endpoints;
  const started = performance.now();
  const batch = 50;
  for (let sent = 0; sent < events; sent += batch) {
    const size = Math.min(batch, events - sent);
    await Promise.all(Array.from({ length: size }, () => broker.publish(newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, statusData(operatorUuid)))));
  }
  const deadline = Date.now() + 300_000;
  while (receiver.count < expected) {
    if (Date.now() > deadline) throw new Error(`only ${receiver.count - (expected - events * endpoints)} of ${events * endpoints} deliveries arrived`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return (events * endpoints) / ((performance.now() - started) / 1000);
}

/** The same signed POST, `total` times, `concurrency` at a time, on keep-alive connections. */
async function bareLoop(url: string, body: string, total: number, concurrency: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const secret = 'whsec_bench';
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'X-Webhook-Signature': signWebhookPayload({ rawBody: body, secrets: secret }),
          'Content-Length': String(Buffer.byteLength(body)),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(body);
    });
  let remaining = total;
  const worker = async () => {
    while (remaining > 0) {
      remaining--;
      await post();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const rate = total / ((performance.now() - started) / 1000);
  agent.destroy();
  return rate;
}

/** RATE events per second; per event, publish start → arrival at the receiver. */
async function steadyLatency(broker: Broker, receiver: BenchReceiver, operatorUuid: string): Promise<number[]> {
  const published = new Map<string, number>();
  const total = RATE * LATENCY_SECONDS;
  const interval = 1000 / RATE;
  const started = performance.now();
  for (let index = 0; index < total; index++) {
    const due = started + index * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const event = newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, statusData(operatorUuid));
    published.set(event.id, performance.now());
    void broker.publish(event);
  }
  const deadline = Date.now() + 120_000;
  const arrivedAt = (id: string) => receiver.arrivals.get(`${id} /latency`);
  while ([...published.keys()].some((id) => arrivedAt(id) === undefined)) {
    if (Date.now() > deadline) throw new Error('not every latency event arrived within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return [...published.entries()].map(([id, at]) => (arrivedAt(id) ?? at) - at);
}
