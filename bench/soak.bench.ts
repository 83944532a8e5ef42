import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { boxRing } from '@dfc/contracts';
import { InternalTokenSigner } from '@dfc/kit/http';
import { queueName } from '@dfc/kit/broker';
import { connect, type ChannelModel } from 'amqplib';
import { mongo } from 'mongoose';
import { GatewayClient, type RegisteredOperator } from '../e2e/src/client.js';
import { DURABLE_QUEUES, startSystem, type ServiceName, type System } from '../e2e/src/system.js';
import { fileBackedRssMiB, rssMiB } from './accounting.js';
import type { BenchSummary } from './run.js';
import { describeTraffic, mixedTraffic, type Answered, type MixedTraffic, type MixRates } from './steady-traffic.js';
import { round, startReceiver } from './support.js';
import { scaleOut, SCALE_IN_FLIGHT } from './webhook-scale.js';

/**
 * The soak (issue 52): BENCH_SOAK_MINUTES (30) of a steady mixed load on two processes of every service, the gateways
 * behind one round-robin entry (e2e/src/system.ts `replicas`), the operator's webhook endpoint on a receiver here.
 * The load (`mixedTraffic`, at RATES, a moderate pace: a soak is about growth, not peak): reads of the operator,
 * submissions that screening approves and submissions left for review, a reviewer approving each, reads and
 * cancellations of approved requests, the operator's first list page, and the webhooks all of that causes.
 *
 * Every BENCH_SOAK_SAMPLE_SECONDS (60) a line: each process's RSS (/proc/<pid>/status VmRSS; its file-backed part,
 * RssFile, is reported beside the growth); the errors so far
 * (any answer a flow did not expect, 5xx included; any delivery attempt webhook-service did not see succeed, by
 * its replicas' webhook_attempts_total; any process that exited); the messages ready in each of the run's durable
 * queues (a passive declaration on the broker, which any broker answers; a queue's unacknowledged messages are
 * bounded by its consumers' prefetch) and webhook-service's attempts waiting (its webhook_attempts_waiting, read
 * from the delivery log); and each service's outbox lag, the age of its oldest unpublished outbox document, read
 * from its database. The first BENCH_SOAK_WARMUP_MINUTES (5) of the run are its warm-up. Goals:
 *
 * - each process's RSS at the end at most 5 % above its RSS at the end of the warm-up;
 * - no error in the whole run;
 * - no growing queue: over the samples from the end of the warm-up on, split in thirds, the last third's mean depth
 *   at most GOALS.queueFloor messages above the first third's (attempts waiting judged the same way);
 * - the outbox lag bounded: at most GOALS.outboxLagSeconds at every sample after the warm-up.
 *
 * Then, in the same run, webhook deliveries a second with two webhook-service processes ÷ one, at a receiver that
 * answers after SLOW_MS (`scaleOut` of the webhooks bench, BENCH_SOAK_SCALE_DELIVERIES deliveries each): goal >= 1.8.
 */
const MINUTES = Number(process.env['BENCH_SOAK_MINUTES'] ?? 30);
const WARMUP_MINUTES = Number(process.env['BENCH_SOAK_WARMUP_MINUTES'] ?? 5);
const SAMPLE_SECONDS = Number(process.env['BENCH_SOAK_SAMPLE_SECONDS'] ?? 60);
const SCALE_DELIVERIES = Number(process.env['BENCH_SOAK_SCALE_DELIVERIES'] ?? 2000);
const LOG_LEVEL = process.env['BENCH_LOG_LEVEL'] ?? 'warn';
/** Well under the cost bench's steady load: eight services share the machine's cores, and a soak is about growth, not peak. */
const RATES: MixRates = { reads: 10, approved: 2, forReview: 0.5, gets: 5, cancels: 0.5 };
const GOALS = { rssGrowth: 0.05, queueFloor: 10, outboxLagSeconds: 30, scale: 1.8 } as const;
const SLOW_MS = 50;
const SERVICES: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service', 'gateway'];
const WITH_DATABASE: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service'];
/** The authority of the review zone, and its reviewer's. */
const AUTHORITY = 'SOAK';
/** The review zone's south-west corner and side (degrees); the approved submissions spread far from it. */
const REVIEW_ZONE = { corner: [10, 60] as [number, number], side: 1 };
const LOG = (line: string) => process.stdout.write(`soak: ${line}\n`);
const verdict = (ok: boolean) => (ok ? '✔' : '✘');

export default async function soakBench(): Promise<BenchSummary> {
  if (!(WARMUP_MINUTES >= 0 && WARMUP_MINUTES < MINUTES))
    throw new Error('BENCH_SOAK_WARMUP_MINUTES must be at least 0 and under BENCH_SOAK_MINUTES');
  const soak = await soakRun();
  const scale = await scaleFigure();
  return { lines: [...soak.lines, scale.line], goalsMet: soak.met && scale.met };
}

interface Sample {
  /** Minutes since the load began. */
  minute: number;
  /** RSS by process (`gateway#2`), MiB; NaN for one that is gone. */
  rss: Map<string, number>;
  /** Of it, the file-backed pages (`fileBackedRssMiB`), MiB. */
  fileRss: Map<string, number>;
  /** Answers a flow did not expect, delivery attempts that did not succeed, processes gone: so far. */
  errors: { requests: number; attempts: number; processesGone: number };
  /** Messages ready by queue, and `attempts waiting` (webhook-service's). */
  depths: Map<string, number>;
  /** Outbox lag by service, seconds. */
  outboxLag: Map<string, number>;
}

async function soakRun(): Promise<{ lines: string[]; met: boolean }> {
  const receiver = await startReceiver();
  const system = await startSystem({
    compiled: true,
    replicas: Object.fromEntries(SERVICES.map((name) => [name, 2])),
    env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000', LOG_LEVEL },
  });
  const database = await mongo.MongoClient.connect(system.mongoUrl);
  const broker = await connect(system.amqpUrl);
  try {
    const client = new GatewayClient(system.gatewayUrl);
    const { operator, reviewerKey } = await prepare(system, client, receiver.url);
    const processes = SERVICES.flatMap((name) => system.pids(name).map((pid, index) => ({ name: `${name}#${index + 1}`, pid })));
    LOG(
      `${processes.length} processes (${processes.map(({ name, pid }) => `${name} ${pid}`).join(', ')}); ${MINUTES} min of load, ` +
        `the first ${WARMUP_MINUTES} its warm-up, a sample every ${SAMPLE_SECONDS} s; rates a second: ${JSON.stringify(RATES)}`,
    );
    const { traffic, done } = mixedTraffic(
      client,
      {
        operator,
        reviewerKey,
        rates: RATES,
        approvedCorner: (n) => [-20 + (n % 50) * 0.02, 52 + (Math.floor(n / 50) % 50) * 0.02],
        reviewCorner: (n) => [REVIEW_ZONE.corner[0] + 0.05 + (n % 20) * 0.04, REVIEW_ZONE.corner[1] + 0.05 + (Math.floor(n / 20) % 20) * 0.04],
      },
      MINUTES * 60,
    );
    const started = performance.now();
    const samples: Sample[] = [];
    const take = async () => {
      const sample = await sampleNow(system, processes, traffic, database, broker, (performance.now() - started) / 60_000);
      samples.push(sample);
      LOG(describeSample(sample));
    };
    // A part of the load that failed is reported when the load is over, with the samples taken until then.
    done.catch(() => undefined);
    await take();
    for (let next = 1; next * SAMPLE_SECONDS < MINUTES * 60; next++) {
      await sleep(Math.max(0, started + next * SAMPLE_SECONDS * 1000 - performance.now()));
      await take();
    }
    await done;
    await take();
    LOG(`load: ${describeTraffic(traffic)}; ${receiver.count} webhooks received`);
    return judge(samples, traffic);
  } finally {
    await broker.close();
    await database.close();
    await system.stop();
    await receiver.close();
  }
}

/** The operator (its endpoint on the receiver), the review zone and its reviewer. */
async function prepare(system: System, client: GatewayClient, receiverUrl: string): Promise<{ operator: RegisteredOperator; reviewerKey: string }> {
  const operator = await client.registerOperatorWithKey({ timezone: 'Europe/Amsterdam' });
  const expect = async (what: string, status: number, answer: Promise<{ status: number; body: unknown }>) => {
    const got = await answer;
    if (got.status !== status) throw new Error(`${what} answered ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`);
    return got.body;
  };
  await expect(
    'the webhook endpoint',
    201,
    client.send('POST', '/api/webhooks', { key: operator.key, body: { url: `${receiverUrl}/soak`, events: ['status_change', 'review_complete'] } }),
  );
  await expect(
    'the review zone',
    201,
    client.send('POST', '/api/zones', {
      key: system.adminKey,
      body: {
        name: 'Soak review zone',
        type: 'OTHER',
        restriction: 'REQ_AUTHORISATION',
        lower_limit_m: 0,
        upper_limit_m: 1000,
        authority: AUTHORITY,
        geometry: { type: 'Polygon', coordinates: [boxRing(REVIEW_ZONE.corner, REVIEW_ZONE.side)] },
      },
    }),
  );
  const reviewer = (await expect(
    'the reviewer key',
    201,
    client.send('POST', '/api/api-keys', { key: system.adminKey, body: { role: 'reviewer', authority: AUTHORITY, name: 'Soak desk' } }),
  )) as { data: { key: string } };
  return { operator, reviewerKey: reviewer.data.key };
}

async function sampleNow(
  system: System,
  processes: Array<{ name: string; pid: number }>,
  traffic: MixedTraffic,
  database: mongo.MongoClient,
  broker: ChannelModel,
  minute: number,
): Promise<Sample> {
  const rss = new Map(processes.map(({ name, pid }) => [name, whileRunning(() => rssMiB(pid))]));
  const fileRss = new Map(processes.map(({ name, pid }) => [name, whileRunning(() => fileBackedRssMiB(pid))]));
  const webhooks = await webhookMetrics(system);
  const failedRequests = (Object.values(traffic) as Answered[]).reduce((sum, part) => sum + part.failed, 0);
  const exited = [...rss.values()].filter((mib) => Number.isNaN(mib)).length;
  const depths = await queueDepths(system, broker);
  depths.set('attempts waiting', webhooks.attemptsWaiting);
  const outboxLag = new Map<string, number>();
  for (const name of WITH_DATABASE) outboxLag.set(name, await outboxLagSeconds(database.db(system.database(name))));
  return { minute, rss, fileRss, errors: { requests: failedRequests, attempts: webhooks.notSucceeded, processesGone: exited }, depths, outboxLag };
}

/** A reading of a process's memory, NaN once it is gone. */
function whileRunning(read: () => number): number {
  try {
    return read();
  } catch {
    return Number.NaN;
  }
}

/**
 * Of every webhook-service process: attempts that did not succeed (retrying, failed, gone), and the attempts waiting
 * (the same figure on each). A process that does not answer within METRICS_WAIT_MS (its gauges read the database
 * at scrape time) keeps its last reading of the counter, and the attempts waiting are unknown (NaN) at that sample.
 */
const METRICS_WAIT_MS = 30_000;
const lastNotSucceeded = new Map<string, number>();
async function webhookMetrics(system: System): Promise<{ notSucceeded: number; attemptsWaiting: number }> {
  let notSucceeded = 0;
  let attemptsWaiting = 0;
  for (const url of system.replicaUrls('webhook-service')) {
    const text = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(METRICS_WAIT_MS) }).then(
      (response) => response.text(),
      (error: Error) => {
        LOG(`${url}/metrics did not answer: ${error.name}`);
        return undefined;
      },
    );
    if (text !== undefined) {
      const failed = series(text, 'webhook_attempts_total').filter(({ labels }) => labels.get('outcome') !== 'succeeded');
      lastNotSucceeded.set(
        url,
        failed.reduce((sum, { value }) => sum + value, 0),
      );
    }
    notSucceeded += lastNotSucceeded.get(url) ?? 0;
    attemptsWaiting = Math.max(attemptsWaiting, (text === undefined ? undefined : series(text, 'webhook_attempts_waiting')[0]?.value) ?? Number.NaN);
  }
  return { notSucceeded, attemptsWaiting };
}

/** The samples of one metric in Prometheus's text format, with their labels (every service adds its own `service`). */
function series(text: string, metric: string): Array<{ labels: Map<string, string>; value: number }> {
  return [...text.matchAll(/^(\w+)(?:\{([^}]*)\})? (\S+)$/gm)]
    .filter(([, name]) => name === metric)
    .map(([, , labels = '', value]) => ({
      labels: new Map([...labels.matchAll(/(\w+)="([^"]*)"/g)].map(([, label = '', content = '']) => [label, content])),
      value: Number(value),
    }));
}

/**
 * Messages ready in each of the run's durable queues, by a passive declaration (a channel of its own each: a refused
 * one closes it); a queue no service has declared is left out.
 */
async function queueDepths(system: System, broker: ChannelModel): Promise<Map<string, number>> {
  const depths = new Map<string, number>();
  for (const purpose of DURABLE_QUEUES) {
    const channel = await broker.createChannel();
    channel.on('error', () => undefined);
    try {
      depths.set(purpose, (await channel.checkQueue(queueName(system.exchange, purpose))).messageCount);
      await channel.close();
    } catch {
      // Not declared: nothing waits in it.
    }
  }
  return depths;
}

/** The age of the oldest unpublished outbox document in the database, seconds (0 when none): its collections that keep an outbox, by their index on `outbox_pending_since`. */
async function outboxLagSeconds(db: mongo.Db): Promise<number> {
  let oldest = Date.now();
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    const collection = db.collection(name);
    const indexes = await collection.indexes();
    if (!indexes.some((index) => 'outbox_pending_since' in index.key)) continue;
    const pending = await collection.findOne(
      { outbox_pending_since: { $exists: true } },
      { sort: { outbox_pending_since: 1 }, projection: { outbox_pending_since: 1 } },
    );
    const since: unknown = pending?.['outbox_pending_since'];
    if (since instanceof Date) oldest = Math.min(oldest, since.getTime());
  }
  return (Date.now() - oldest) / 1000;
}

function describeSample({ minute, rss, errors, depths, outboxLag }: Sample): string {
  const byService = SERVICES.map((name) => {
    const own = [...rss].filter(([process]) => process.startsWith(`${name}#`)).map(([, mib]) => round(mib, 0));
    return `${name} ${own.join('/')}`;
  });
  return (
    `t=${round(minute, 1)} min: RSS MiB ${byService.join(', ')}; errors ${describeErrors(errors)}; ` +
    `ready ${[...depths].map(([queue, depth]) => `${queue} ${depth}`).join(', ')}; ` +
    `outbox lag ${[...outboxLag].map(([name, seconds]) => `${name} ${round(seconds, 1)} s`).join(', ')}`
  );
}

function errorCount({ requests, attempts, processesGone }: Sample['errors']): number {
  return requests + attempts + processesGone;
}

function describeErrors(errors: Sample['errors']): string {
  return `${errorCount(errors)} (requests ${errors.requests}, delivery attempts ${errors.attempts}, processes gone ${errors.processesGone})`;
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The goals over the samples; a summary table printed, a line per figure returned. */
function judge(samples: Sample[], traffic: MixedTraffic): { lines: string[]; met: boolean } {
  const lines: string[] = [];
  let met = true;
  const add = (line: string, ok: boolean) => {
    lines.push(`${line} ${verdict(ok)}`);
    met &&= ok;
  };
  // The sample nearest the warm-up's end: the timer that takes them runs a little late.
  const atWarmupEnd = samples.reduce((best, sample) =>
    Math.abs(sample.minute - WARMUP_MINUTES) < Math.abs(best.minute - WARMUP_MINUTES) ? sample : best,
  );
  const after = samples.slice(samples.indexOf(atWarmupEnd));
  const last = samples.at(-1)!;

  const table = [
    '| process | RSS at warm-up end, MiB | at the end | highest after warm-up | growth | goal ≤ 5 % | of it file-backed, warm-up end → end |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const name of atWarmupEnd.rss.keys()) {
    const start = atWarmupEnd.rss.get(name) ?? Number.NaN;
    const end = last.rss.get(name) ?? Number.NaN;
    const highest = Math.max(...after.map((sample) => sample.rss.get(name) ?? Number.NaN));
    const growth = (end - start) / start;
    const ok = growth <= GOALS.rssGrowth;
    const files = `${round(atWarmupEnd.fileRss.get(name) ?? Number.NaN, 1)} → ${round(last.fileRss.get(name) ?? Number.NaN, 1)}`;
    table.push(
      `| ${name} | ${round(start, 1)} | ${round(end, 1)} | ${round(highest, 1)} | ${round(growth * 100, 1)} % | ${verdict(ok)} | ${files} |`,
    );
    add(
      `${name} RSS ${round(start, 1)} → ${round(end, 1)} MiB from the warm-up's end (t=${round(atWarmupEnd.minute, 1)} min), ${round(growth * 100, 1)} % (goal <= 5 %; file-backed ${files} MiB)`,
      ok,
    );
  }

  add(`errors in ${round(last.minute, 1)} min: ${describeErrors(last.errors)} (goal 0) [${describeTraffic(traffic)}]`, errorCount(last.errors) === 0);

  table.push('', '| queue | mean depth, first third after warm-up | last third | highest | goal: not growing |', '|---|---|---|---|---|');
  for (const queue of last.depths.keys()) {
    // A sample whose reading is unknown (a scrape that did not answer) is left out.
    const depths = after.map((sample) => sample.depths.get(queue) ?? Number.NaN).filter((depth) => !Number.isNaN(depth));
    const third = Math.floor(depths.length / 3);
    if (third < 1) {
      add(`${queue}: ${depths.length} known samples after the warm-up, too few to judge growth (3 at least)`, false);
      continue;
    }
    const [first, final] = [mean(depths.slice(0, third)), mean(depths.slice(-third))];
    const ok = final <= first + GOALS.queueFloor;
    table.push(`| ${queue} | ${round(first, 1)} | ${round(final, 1)} | ${Math.max(...depths)} | ${verdict(ok)} |`);
    add(
      `${queue}: mean depth ${round(first, 1)} in the first third after warm-up, ${round(final, 1)} in the last (growing: over ${GOALS.queueFloor} more)`,
      ok,
    );
  }

  table.push('', `| service | highest outbox lag after warm-up | goal ≤ ${GOALS.outboxLagSeconds} s |`, '|---|---|---|');
  for (const name of last.outboxLag.keys()) {
    const highest = Math.max(...after.map((sample) => sample.outboxLag.get(name) ?? Number.NaN));
    const ok = highest <= GOALS.outboxLagSeconds;
    table.push(`| ${name} | ${round(highest, 1)} s | ${verdict(ok)} |`);
    add(`${name} outbox lag at most ${round(highest, 1)} s after warm-up (goal <= ${GOALS.outboxLagSeconds} s)`, ok);
  }
  for (const line of table) LOG(line);
  return { lines, met };
}

/** Two webhook-service processes ÷ one at a receiver answering after SLOW_MS, on a system of webhook-service alone. */
async function scaleFigure(): Promise<{ line: string; met: boolean }> {
  const receiver = await startReceiver();
  const secretKey = randomBytes(32).toString('base64');
  const system = await startSystem({ compiled: true, services: ['webhook-service'], env: { LOG_LEVEL, WEBHOOK_SECRET_KEY: secretKey } });
  try {
    const { one, two } = await scaleOut(system, secretKey, new InternalTokenSigner(system.privateKeyPem), receiver, SLOW_MS, SCALE_DELIVERIES);
    const ratio = two / one;
    const line =
      `webhook deliveries, receiver taking ${SLOW_MS} ms, ${SCALE_IN_FLIGHT} attempts in flight per process: one process ${round(one, 0)}/s, ` +
      `two ${round(two, 0)}/s, ratio ${round(ratio, 3)} (goal >= ${GOALS.scale}) ${verdict(ratio >= GOALS.scale)}`;
    LOG(line);
    return { line, met: ratio >= GOALS.scale };
  } finally {
    await system.stop();
    await receiver.close();
  }
}
