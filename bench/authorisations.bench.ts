import { flightRequestBody, GatewayClient, WebhookReceiver, type RegisteredOperator } from '../e2e/src/client.js';
import { startSystem, type ServiceName, type System } from '../e2e/src/system.js';
import type { BenchSummary } from './run.js';
import { measure, round, type Measured } from './support.js';

/**
 * Issue 10's figures, through the gateway, from one run:
 *
 * (a) preview throughput ÷ submission throughput (goal >= 2): a preview runs
 *     the same checks and screening but writes nothing and emits nothing.
 *     Each is measured on a fresh system, so neither reads the other's requests.
 * (b) the time from a zone change (a new prohibited zone over 1,000 approved
 *     flights) to the last of their 1,000 `status_change` webhooks saying
 *     Rescinded, at a subscriber's receiver (reported).
 */
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const AFFECTED = Number(process.env['BENCH_RESCISSIONS'] ?? 1000);
const SEED_CONCURRENCY = 8;
const RESCISSION_TIMEOUT_MS = 600_000;
const GOAL_PREVIEW_RATIO = 2;
const LONGITUDE = 5.2;
const LOG = (line: string) => process.stdout.write(`authorisations: ${line}\n`);

export default async function authorisationsBench(): Promise<BenchSummary> {
  const submissions = await withSystem(['operator-service', 'flight-request-service', 'gateway'], (system, client) =>
    measurePost(system, client, '/api/flight-requests', 'submission'),
  );
  const previews = await withSystem(['operator-service', 'flight-request-service', 'gateway'], (system, client) =>
    measurePost(system, client, '/api/flight-requests/preview', 'preview'),
  );
  const rescission = await withSystem(['operator-service', 'flight-request-service', 'webhook-service', 'gateway'], measureRescission);

  const ratio = previews.requestsPerSecond / submissions.requestsPerSecond;
  const lines = [
    `preview/submission throughput ratio = ${round(ratio)} (goal >= ${GOAL_PREVIEW_RATIO}) ${ratio >= GOAL_PREVIEW_RATIO ? 'OK' : 'MISSED'}` +
      ` [${round(previews.requestsPerSecond, 0)} vs ${round(submissions.requestsPerSecond, 0)} req/s]`,
    `zone change → last of ${AFFECTED} rescission webhooks: ${round(rescission, 1)} s (reported)`,
  ];
  for (const line of lines) LOG(line);
  return { lines, goalsMet: ratio >= GOAL_PREVIEW_RATIO };
}

async function withSystem<T>(services: ServiceName[], work: (system: System, client: RegisteredOperator) => Promise<T>): Promise<T> {
  const system = await startSystem({
    compiled: true,
    services,
    env: {
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000',
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    },
  });
  try {
    const gateway = new GatewayClient(system.gatewayUrl);
    const client = await gateway.registerOperatorWithKey();
    await untilKnown(gateway, client);
    return await work(system, client);
  } finally {
    await system.stop();
  }
}

/** The flight-request-service learns of the operator from operator.registered; a preview is refused until then. */
async function untilKnown(gateway: GatewayClient, client: RegisteredOperator): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await gateway.send('POST', '/api/flight-requests/preview', { key: client.key, body: flightRequestBody(client, {}, LONGITUDE) });
    if (answer.status === 200) return;
    if (Date.now() > deadline) throw new Error(`operator never became known: ${answer.status} ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function measurePost(system: System, client: RegisteredOperator, path: string, label: string): Promise<Measured> {
  return measure(
    'authorisations',
    label,
    {
      url: `${system.gatewayUrl}${path}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': client.key },
      body: JSON.stringify(flightRequestBody(client, {}, LONGITUDE)),
    },
    CONNECTIONS,
    SECONDS,
  );
}

/**
 * 1,000 approved flights (submitted through the gateway before the receiver
 * subscribes, so no earlier webhook is queued ahead), then one prohibited zone
 * over all of them; the clock stops at the last Rescinded webhook.
 */
async function measureRescission(system: System, client: RegisteredOperator): Promise<number> {
  const gateway = new GatewayClient(system.gatewayUrl);
  const uuids = await seedApprovals(gateway, client);
  const receiver = await new WebhookReceiver().start();
  try {
    const subscribed = await gateway.send('POST', '/api/webhooks', { key: client.key, body: { url: receiver.url, events: ['status_change'] } });
    if (subscribed.status !== 201) throw new Error(`subscription failed: ${subscribed.status} ${JSON.stringify(subscribed.body)}`);
    const started = performance.now();
    const zone = await gateway.send('POST', '/api/zones', {
      key: system.adminKey,
      body: {
        name: 'Bench emergency',
        type: 'TEMPORARY',
        restriction: 'PROHIBITED',
        lower_limit_m: 0,
        upper_limit_m: 1000,
        authority: 'POLICE',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [LONGITUDE - 0.1, 51.9],
              [LONGITUDE + 0.1, 51.9],
              [LONGITUDE + 0.1, 52.1],
              [LONGITUDE - 0.1, 52.1],
              [LONGITUDE - 0.1, 51.9],
            ],
          ],
        },
      },
    });
    if (zone.status !== 201) throw new Error(`zone refused: ${zone.status} ${JSON.stringify(zone.body)}`);
    const rescinded = () =>
      receiver.received.filter(
        (webhook) =>
          webhook.body.event === 'status_change' &&
          webhook.body.data['status'] === 'Rescinded' &&
          uuids.has(String(webhook.body.data['flight_request_uuid'])),
      );
    const deadline = Date.now() + RESCISSION_TIMEOUT_MS;
    while (rescinded().length < uuids.size) {
      if (Date.now() > deadline) throw new Error(`only ${rescinded().length} of ${uuids.size} rescission webhooks arrived`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    LOG(`${uuids.size} rescission webhooks in ${round(seconds, 1)} s`);
    return seconds;
  } finally {
    await receiver.close();
  }
}

async function seedApprovals(gateway: GatewayClient, client: RegisteredOperator): Promise<Set<string>> {
  const uuids = new Set<string>();
  const started = performance.now();
  const submitOne = async () => {
    const answer = await gateway.send<{ data: { uuid: string; status: string } }>('POST', '/api/flight-requests', {
      key: client.key,
      body: flightRequestBody(client, {}, LONGITUDE),
    });
    if (answer.status !== 201 || answer.body.data.status !== 'Approved')
      throw new Error(`seeding failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    uuids.add(answer.body.data.uuid);
  };
  while (uuids.size < AFFECTED) {
    await Promise.all(Array.from({ length: Math.min(SEED_CONCURRENCY, AFFECTED - uuids.size) }, submitOne));
  }
  LOG(`seeded ${uuids.size} approved flights through the gateway in ${round((performance.now() - started) / 1000, 1)} s`);
  return uuids;
}
