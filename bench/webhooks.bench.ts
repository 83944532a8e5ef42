import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { InternalTokenSigner } from '@dfc/kit/http';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { newEvent, RoutingKeys, signWebhookPayload, type WebhookPayload } from '@dfc/contracts';
import { startSystem, type System } from '../e2e/src/system.js';
import { attemptModel } from '../services/webhook-service/src/store/attempt-model.js';
import { deliveryModel } from '../services/webhook-service/src/store/delivery-model.js';
import { retentionOf } from '../services/webhook-service/src/config.js';
import { webhookEndpointModel, type WebhookEndpoint } from '../services/webhook-service/src/store/endpoint-model.js';
import { newDelivery } from '../services/webhook-service/src/use-cases/fan-out-event.js';
import { costPerUnit, engineGroups, serviceGroup } from './accounting.js';
import type { BenchSummary } from './run.js';
import { percentile, round, secondsToRun, startReceiver, statusData, type BenchReceiver } from './support.js';
import { deliverAll, register, scaleOut, SCALE_IN_FLIGHT } from './webhook-scale.js';

/**
 * What the webhook pipeline costs, with webhook-service as its own process
 * on the real database and broker, delivering to a receiver in this process:
 *
 * - Throughput: EVENTS status_change events fanned out to ENDPOINTS endpoints
 *   (per-endpoint limit 4, so ENDPOINTS × 4 attempts in flight at most),
 *   deliveries per second from the first publish to the last arrival, divided
 *   by a bare HTTP POST loop (same body, same receiver, same concurrency,
 *   keep-alive). Goal >= 0.5.
 * - Latency: at 10, 50 and 100 events per second for LATENCY_SECONDS to one
 *   endpoint, the time from publishing the domain event (the state change) to
 *   the webhook arriving. Goal p99 <= 250 ms at 100 events/s.
 * - Scale-out (bench/webhook-scale.ts): a slow receiver (SLOW_MS per call);
 *   deliveries per second with a second webhook-service process on the same
 *   database and broker, divided by one process alone. Each replica runs at
 *   most SCALE_IN_FLIGHT attempts at once. Goal >= 1.6. Again with a slower
 *   receiver (SLOWER_MS), which asks the database for less per second: how far
 *   a replica helps when it is not the database that limits.
 *
 * Sizes are modest by default (BENCH_WEBHOOK_EVENTS, _ENDPOINTS,
 * BENCH_LATENCY_SECONDS, BENCH_SCALE_EVENTS to change them): the machine and the
 * local database are shared.
 */
const EVENTS = Number(process.env['BENCH_WEBHOOK_EVENTS'] ?? 100);
const ENDPOINTS = Number(process.env['BENCH_WEBHOOK_ENDPOINTS'] ?? 2);
const PER_ENDPOINT = 4;
const RATES = [10, 50, 100];
const LATENCY_SECONDS = Number(process.env['BENCH_LATENCY_SECONDS'] ?? 5);
const SLOW_MS = 50;
const SLOWER_MS = 200;
const SCALE_EVENTS = Number(process.env['BENCH_SCALE_EVENTS'] ?? 200);
const GOAL_RATIO = 0.5;
const GOAL_P99_MS = 250;
const GOAL_SCALE = 1.6;

export default async function webhooksBench(): Promise<BenchSummary> {
  const receiver = await startReceiver();
  const secretKey = randomBytes(32).toString('base64');
  const system = await startSystem({
    compiled: true,
    services: ['webhook-service'],
    env: {
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
      WEBHOOK_SECRET_KEY: secretKey,
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
      WEBHOOK_MAX_IN_FLIGHT: '64',
    },
  });
  const log = createLogger('webhooks-bench', 'warn');
  const broker = await Broker.connect(system.amqpUrl, system.exchange, log);
  const signer = new InternalTokenSigner(system.privateKeyPem);
  try {
    const throughputOperator = randomUUID();
    for (let index = 0; index < ENDPOINTS; index++) await register(system, signer, throughputOperator, `${receiver.url}/throughput/${index}`);

    // Warm-up: connections, JIT, the queue.
    await deliverAll(broker, receiver, throughputOperator, 20, ENDPOINTS);

    const concurrency = ENDPOINTS * PER_ENDPOINT;
    const cost = await costPerUnit([serviceGroup('webhook-service', () => system.pid('webhook-service')), ...engineGroups()], async () => {
      await deliverAll(broker, receiver, throughputOperator, EVENTS, ENDPOINTS);
      return EVENTS * ENDPOINTS;
    });
    const pipeline = cost.units / cost.seconds;
    const sampleBody = JSON.stringify({
      id: randomUUID(),
      event: 'status_change',
      created_at: new Date().toISOString(),
      data: statusData(throughputOperator),
    });
    const bare = await bareLoop(`${receiver.url}/bare`, sampleBody, EVENTS * ENDPOINTS, concurrency);
    const engine = await engineAlone(system, EVENTS, ENDPOINTS, PER_ENDPOINT);
    const ratio = pipeline / bare;
    process.stdout.write(
      `webhooks: throughput: ${round(pipeline, 0)} deliveries/s vs bare POST loop ${round(bare, 0)} req/s (concurrency ${concurrency})\n`,
    );

    const lines = [
      `throughput: ${round(pipeline, 0)} deliveries/s (${EVENTS} events × ${ENDPOINTS} endpoints), bare POST loop ${round(bare, 0)} req/s, concurrency ${concurrency}`,
      `throughput ratio webhooks/bare: ${round(ratio, 2)} (goal >= ${GOAL_RATIO}) ${ratio >= GOAL_RATIO ? 'OK' : 'MISSED'}`,
      `CPU per delivery over the throughput phase (${round(cost.seconds, 1)} s): ${[...cost.msPerUnit].map(([name, ms]) => `${name} ${round(ms, 3)} ms`).join(', ')} (reported; the cost bench judges it)`,
      `the database alone, the same commands per delivery (${ENGINE_COMMANDS}), same concurrency: ${round(engine, 0)} deliveries/s; webhooks/database alone: ${round(pipeline / engine, 2)}`,
    ];
    let latencyGoal = true;
    for (const rate of RATES) {
      const latencyOperator = randomUUID();
      await register(system, signer, latencyOperator, `${receiver.url}/latency/${rate}`);
      const latencies = await steadyLatency(broker, receiver, latencyOperator, rate);
      latencies.sort((a, b) => a - b);
      const p50 = percentile(latencies, 0.5);
      const p99 = percentile(latencies, 0.99);
      const judged = rate === 100;
      if (judged) latencyGoal = p99 <= GOAL_P99_MS;
      const verdict = judged ? ` (goal p99 <= ${GOAL_P99_MS} ms) ${p99 <= GOAL_P99_MS ? 'OK' : 'MISSED'}` : '';
      lines.push(`event published → webhook arrived at ${rate}/s for ${LATENCY_SECONDS} s: p50 ${round(p50)} ms, p99 ${round(p99)} ms${verdict}`);
      process.stdout.write(`webhooks: ${lines.at(-1)}\n`);
    }

    const scale = await scaleOut(system, secretKey, signer, receiver, SLOW_MS, SCALE_EVENTS);
    lines.push(
      `slow receiver (${SLOW_MS} ms per call, ${SCALE_IN_FLIGHT} attempts in flight per replica): one process ${round(scale.one, 0)} deliveries/s, two ${round(scale.two, 0)}/s, ratio ${round(scale.two / scale.one, 2)} (goal >= ${GOAL_SCALE}) ${scale.two / scale.one >= GOAL_SCALE ? 'OK' : 'MISSED'}`,
    );
    const slower = await scaleOut(system, secretKey, signer, receiver, SLOWER_MS, SCALE_EVENTS);
    lines.push(
      `slower receiver (${SLOWER_MS} ms per call, same limits): one process ${round(slower.one, 0)} deliveries/s, two ${round(slower.two, 0)}/s, ratio ${round(slower.two / slower.one, 2)} (reported)`,
    );
    for (const line of lines) process.stdout.write(`webhooks: ${line}\n`);
    return { lines, goalsMet: ratio >= GOAL_RATIO && latencyGoal && scale.two / scale.one >= GOAL_SCALE };
  } finally {
    await broker.close();
    await system.stop();
    await receiver.close();
  }
}

/** The database commands one delivery costs the pipeline, as the command log counts them. */
const ENGINE_COMMANDS =
  'per event: find subscribers, one insert of its deliveries; per delivery: insert the attempt beside the status write (the first attempt works from the copy its message carries)';

/**
 * What the local database takes for the webhook pipeline's database work
 * alone: the same commands on the same models and indexes (a scratch database
 * beside the service's), as many deliveries in flight, no broker, no HTTP.
 * The ceiling the engine puts on deliveries per second, whatever the code.
 */
async function engineAlone(system: System, events: number, endpoints: number, perEndpoint: number): Promise<number> {
  const log = createLogger('webhooks-bench', 'warn');
  const connection = await connectMongo(system.mongoUrl, `${system.database('webhook-service')}_engine`, log, 3);
  const Endpoints = webhookEndpointModel(connection);
  const retention = retentionOf({ WEBHOOK_DELIVERY_TTL_DAYS: 30, WEBHOOK_ATTEMPT_TTL_DAYS: 30 });
  const Deliveries = deliveryModel(connection, retention.deliverySeconds);
  const Attempts = attemptModel(connection, retention.attemptSeconds);
  await syncIndexes(connection);
  try {
    const operatorUuid = randomUUID();
    await Endpoints.collection.insertMany(
      Array.from({ length: endpoints }, () => ({
        _id: randomUUID() as never,
        operator_uuid: operatorUuid,
        enabled: true,
        events: ['status_change'],
        url: 'http://127.0.0.1/',
        version: 0,
      })),
    );
    const payload = {
      id: randomUUID(),
      event: 'status_change',
      created_at: new Date().toISOString(),
      data: statusData(operatorUuid),
    } as WebhookPayload;
    const delivery = (endpoint: WebhookEndpoint) => {
      const fresh = newDelivery(endpoint, { ...payload, id: randomUUID() }, new Date(), new Date());
      return { ...fresh, version: 0, outbox: [] };
    };
    const oneEvent = async () => {
      const subscribers = await Endpoints.find({ operator_uuid: operatorUuid, enabled: true, events: 'status_change' }, { outbox: 0 }).lean<
        WebhookEndpoint[]
      >();
      const docs = subscribers.map(delivery);
      await Deliveries.insertMany(docs, { ordered: false });
      await Promise.all(
        docs.map(async (doc) => {
          const now = new Date();
          await Promise.all([
            Attempts.create({
              _id: randomUUID(),
              delivery_id: doc._id,
              endpoint_id: doc.endpoint_id,
              at: now,
              status_code: 200,
              error: null,
              latency_ms: 1,
              response_body: 'ok',
            }),
            Deliveries.findOneAndUpdate(
              { _id: doc._id, version: 0 },
              { $set: { status: 'succeeded', attempt_count: 1, round_attempts: 1, next_attempt_at: null, updated_at: now }, $inc: { version: 1 } },
              { returnDocument: 'after' },
            ).lean(),
          ]);
        }),
      );
    };
    return (events * endpoints) / (await secondsToRun(events, perEndpoint, oneEvent));
  } finally {
    await connection.dropDatabase();
    await connection.close();
  }
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
  const rate = total / (await secondsToRun(total, concurrency, post));
  agent.destroy();
  return rate;
}

/** `rate` events per second; per event, publish start → arrival at the receiver. */
async function steadyLatency(broker: Broker, receiver: BenchReceiver, operatorUuid: string, rate: number): Promise<number[]> {
  const published = new Map<string, number>();
  const total = rate * LATENCY_SECONDS;
  const interval = 1000 / rate;
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
  const arrivedAt = (id: string) => receiver.arrivals.get(`${id} /latency/${rate}`);
  while ([...published.keys()].some((id) => arrivedAt(id) === undefined)) {
    if (Date.now() > deadline) throw new Error('not every latency event arrived within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return [...published.entries()].map(([id, at]) => (arrivedAt(id) ?? at) - at);
}
