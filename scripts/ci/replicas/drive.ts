/**
 * The checks of scripts/ci/replicas.sh on the running multi-replica system (two processes of each service,
 * HAProxy in front of each, three broker nodes), each printed with its figures; exits non-zero on any miss:
 *
 *  1. zones: a zone created through one gateway and one flight-request-service process, then at once a
 *     screening through the other gateway and the other process, which must apply it; both ways round;
 *  2. limits: one key calling the two gateways in turn, twice its per-minute limit: the two together
 *     answer the limit (within 10 %), the rest 429;
 *  3. a broker node lost: a stream of submissions through the load balancer, the broker node named by
 *     REPLICAS_KILL_NODE killed (SIGKILL) a third of the way in; every accepted submission's status_change
 *     must reach the receiver, signed, under one delivery id, and every process must be ready again.
 *
 * Environment (set by replicas.sh): REPLICAS_LB_URL, REPLICAS_PROCESSES (name=url,...), REPLICAS_STATS_URL
 * (HAProxy's stats page), ADMIN_API_KEY, REPLICAS_KEY_LIMIT, REPLICAS_STREAM_SECONDS, REPLICAS_KILL_NODE,
 * REPLICAS_KILL_PID.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundsRing, flightRequestExample, verifyWebhookSignature, WEBHOOK_HEADERS } from '@dfc/contracts';
import { GatewayClient, WebhookReceiver, type Answer, type ReceivedWebhook, type RegisteredOperator } from '../../../e2e/src/client.js';

const HOUR_MS = 3_600_000;
/**
 * Submissions per second in the stream, spread over STREAM_OPERATORS keys, each well under its limit; at most
 * STREAM_IN_FLIGHT unanswered at once, so a busy machine slows the stream rather than queueing it without bound.
 */
const STREAM_RATE = 4;
const STREAM_IN_FLIGHT = 6;
const STREAM_OPERATORS = 4;
const DELIVERY_WAIT_MS = 90_000;
const READY_WAIT_MS = 60_000;
/** How long the receiver keeps listening once every delivery is in, for a second one of any. */
const LATE_DUPLICATE_WAIT_MS = 3_000;
const ZONE_ROUNDS = 4;

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/ci/replicas.sh sets it)`);
  return value;
}

const lb = new GatewayClient(env('REPLICAS_LB_URL'));
const processes = new Map(
  env('REPLICAS_PROCESSES')
    .split(',')
    .map((entry) => entry.split('=') as [string, string]),
);
const gateways = ['gateway-1', 'gateway-2'].map((name) => ({ name, client: new GatewayClient(processes.get(name) ?? '') }));
const adminKey = env('ADMIN_API_KEY');
const keyLimit = Number(env('REPLICAS_KEY_LIMIT'));
const streamSeconds = Number(env('REPLICAS_STREAM_SECONDS'));

class Miss extends Error {}

function say(message: string): void {
  console.log(`[replicas] ${message}`);
}

function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Miss(what);
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** A request id that HAProxy's `use-server` rule sends to the named process. */
const pinnedTo = (process: string) => ({ 'x-request-id': `pin-${process}-${randomUUID()}` });

function submission(operator: RegisteredOperator, corner: [number, number]): Record<string, unknown> {
  const start = new Date(Math.ceil((Date.now() + 2 * HOUR_MS) / 1000) * 1000);
  return flightRequestExample({ operatorUuid: operator.uuid, operatorEmail: operator.email, start, corner, side: 0.01 });
}

function closure(lon: number, lat: number, name: string): Record<string, unknown> {
  const ring = boundsRing([lon - 0.05, lat - 0.05, lon + 0.1, lat + 0.1]);
  return {
    name,
    type: 'TEMPORARY',
    restriction: 'PROHIBITED',
    lower_limit_m: 0,
    upper_limit_m: 1000,
    authority: 'POLICE',
    geometry: { type: 'Polygon', coordinates: [ring] },
  };
}

async function zoneAcrossReplicas(): Promise<void> {
  const operator = await lb.registerOperatorWithKey({ timezone: 'Europe/Berlin' });
  for (let round = 0; round < ZONE_ROUNDS; round++) {
    const [writer, screener] = round % 2 === 0 ? [0, 1] : [1, 0];
    const [writerProcess, screenerProcess] = [`flight-request-service-${writer + 1}`, `flight-request-service-${screener + 1}`];
    const [lon, lat] = [14 + round * 0.5, 47];
    const zone = await gateways[writer]!.client.send<{ data: { id: string } }>('POST', '/api/zones', {
      key: adminKey,
      body: closure(lon, lat, `Closure ${round + 1}`),
      headers: pinnedTo(writerProcess),
    });
    expect(zone.status === 201, `zone ${round + 1}: POST /api/zones answered ${zone.status} ${JSON.stringify(zone.body)}`);
    expect(
      zone.headers.get('x-upstream-replica') === writerProcess,
      `zone ${round + 1}: created by ${zone.headers.get('x-upstream-replica')}, not ${writerProcess}`,
    );
    const created = Date.now();
    const screened = await gateways[screener]!.client.send<{ data: { status: string; review: { findings: Array<{ zone_id?: string }> } } }>(
      'POST',
      '/api/flight-requests',
      { key: operator.key, body: submission(operator, [lon, lat]), headers: pinnedTo(screenerProcess) },
    );
    const after = Date.now() - created;
    expect(screened.status === 201, `zone ${round + 1}: the screening answered ${screened.status} ${JSON.stringify(screened.body)}`);
    expect(
      screened.headers.get('x-upstream-replica') === screenerProcess,
      `zone ${round + 1}: screened by ${screened.headers.get('x-upstream-replica')}, not ${screenerProcess}`,
    );
    expect(
      screened.body.data.status === 'Rejected' && screened.body.data.review.findings.some((finding) => finding.zone_id === zone.body.data.id),
      `zone ${round + 1}: the screening on ${screenerProcess} did not apply the zone just created on ${writerProcess}: ${screened.body.data.status} ${JSON.stringify(screened.body.data.review)}`,
    );
    say(
      `zone ${round + 1}: created through ${gateways[writer]!.name} on ${writerProcess}; a submission ${after} ms later through ` +
        `${gateways[screener]!.name} on ${screenerProcess}: Rejected by that zone`,
    );
  }
}

async function limitAcrossGateways(): Promise<void> {
  const operator = await lb.registerOperatorWithKey();
  const answered = gateways.map(() => new Map<number, number>());
  let retryAfter: string | null = null;
  const started = Date.now();
  // One call at a time: on the local engine concurrent counts can be lost (docs/architecture.md, "The local engine").
  for (let call = 0; call < 2 * keyLimit; call++) {
    const gateway = call % gateways.length;
    const answer = await gateways[gateway]!.client.send('GET', `/api/operators/${operator.uuid}`, { key: operator.key });
    answered[gateway]!.set(answer.status, (answered[gateway]!.get(answer.status) ?? 0) + 1);
    if (answer.status === 429) retryAfter ??= answer.headers.get('retry-after');
  }
  const count = (status: number) => answered.reduce((sum, byStatus) => sum + (byStatus.get(status) ?? 0), 0);
  const allowed = count(200);
  say(
    `limit: ${2 * keyLimit} calls of one key in ${Date.now() - started} ms, alternating gateways: ${allowed} answered 200 ` +
      `(${gateways.map((gateway, i) => `${gateway.name} ${answered[i]!.get(200) ?? 0}`).join(', ')}), ${count(429)} 429 ` +
      `(Retry-After ${retryAfter}) at a limit of ${keyLimit} per minute`,
  );
  expect(allowed >= keyLimit * 0.9 && allowed <= keyLimit * 1.1, `limit: ${allowed} calls allowed, not ${keyLimit} ± 10 %`);
  expect(count(200) + count(429) === 2 * keyLimit, `limit: answers other than 200 and 429: ${JSON.stringify(answered.map((m) => [...m]))}`);
  expect(retryAfter !== null, 'limit: a 429 came without Retry-After');
}

interface Submitted {
  n: number;
  answer: Answer<{ data?: { uuid: string; status: string } }> | undefined;
  error?: string;
  ms: number;
  answeredAt: number;
}

async function allReady(): Promise<string[]> {
  const unready: string[] = [];
  await Promise.all(
    [...processes].map(async ([name, url]) => {
      const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (!ok) unready.push(name);
    }),
  );
  return unready.sort();
}

/**
 * Every process's /readyz from the kill on: which went unready, and when the last of them was ready again
 * (0 when none ever was unready).
 */
function watchReadiness(): { stop(): Promise<{ unready: Set<string>; readyAgainAt: number }> } {
  const unready = new Set<string>();
  let readyAgainAt = 0;
  let watching = true;
  const loop = (async () => {
    while (watching) {
      const now = await allReady();
      for (const name of now) unready.add(name);
      if (now.length > 0) readyAgainAt = 0;
      else if (unready.size > 0 && readyAgainAt === 0) readyAgainAt = Date.now();
      await sleep(250);
    }
  })();
  return {
    stop: async () => {
      watching = false;
      await loop;
      return { unready, readyAgainAt };
    },
  };
}

/** HAProxy's view of each server: its status and the sessions it has had. */
async function haproxyServers(): Promise<Array<{ proxy: string; server: string; status: string; sessions: number }>> {
  const csv = await (await fetch(`${env('REPLICAS_STATS_URL')};csv`)).text();
  const [header, ...rows] = csv.trim().split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  return rows
    .map((row) => row.split(','))
    .filter((cells) => !['FRONTEND', 'BACKEND'].includes(cells[at('svname')] ?? '') && cells[at('pxname')] !== 'stats')
    .map((cells) => ({
      proxy: cells[at('pxname')]!,
      server: cells[at('svname')]!,
      status: cells[at('status')]!,
      sessions: Number(cells[at('stot')]),
    }));
}

async function brokerNodeLost(): Promise<void> {
  const killNode = env('REPLICAS_KILL_NODE');
  const receiver = await new WebhookReceiver().start();
  const arrivals = new Map<ReceivedWebhook, number>();
  receiver.answer = (hook) => {
    arrivals.set(hook, Date.now());
    return { status: 200 };
  };
  const operators = await Promise.all(Array.from({ length: STREAM_OPERATORS }, () => lb.registerOperatorWithKey()));
  const secrets = new Map<string, string>();
  for (const operator of operators) {
    const endpoint = await lb.send<{ data: { secret: string } }>('POST', '/api/webhooks', {
      key: operator.key,
      body: { url: receiver.url, events: ['status_change'] },
    });
    expect(endpoint.status === 201, `stream: subscribing the receiver answered ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    secrets.set(operator.uuid, endpoint.body.data.secret);
  }
  const secretOf = new Map<string, string>();
  const submitted: Submitted[] = [];
  const submit = async (n: number): Promise<void> => {
    const operator = operators[n % operators.length]!;
    const corner: [number, number] = [20 + (n % 25) * 0.03, 40 + Math.floor(n / 25) * 0.03];
    const sent = Date.now();
    const record: Submitted = { n, answer: undefined, ms: 0, answeredAt: 0 };
    try {
      record.answer = await lb.send('POST', '/api/flight-requests', { key: operator.key, body: submission(operator, corner) });
      const uuid = record.answer.body?.data?.uuid;
      if (uuid) secretOf.set(uuid, secrets.get(operator.uuid)!);
    } catch (error) {
      record.error = (error as Error).message;
    }
    record.ms = Date.now() - sent;
    record.answeredAt = Date.now();
    submitted.push(record);
  };

  const received = (hooks: ReceivedWebhook[]) => new Set(hooks.map((hook) => String(hook.body.data['flight_request_uuid'])));
  const accepted = () => submitted.filter((record) => record.answer?.status === 201);
  const started = Date.now();
  const killAt = started + (streamSeconds * 1000) / 3;
  let killedAt = 0;
  let readiness: ReturnType<typeof watchReadiness> | undefined;
  let lastProgress = started;
  const inFlight: Array<Promise<void>> = [];
  let unanswered = 0;
  say(
    `stream: ${STREAM_RATE} submissions a second for ${streamSeconds} s through the load balancer, ${STREAM_OPERATORS} operators, the receiver on ${receiver.url}`,
  );
  for (let n = 0; Date.now() < started + streamSeconds * 1000; n++) {
    while (unanswered >= STREAM_IN_FLIGHT) await sleep(20);
    unanswered++;
    inFlight.push(submit(n).finally(() => unanswered--));
    if (killedAt === 0 && Date.now() >= killAt) {
      process.kill(Number(env('REPLICAS_KILL_PID')), 'SIGKILL');
      killedAt = Date.now();
      readiness = watchReadiness();
      say(
        `stream: t=${((killedAt - started) / 1000).toFixed(1)} s: broker node ${killNode} killed (SIGKILL, pid ${env('REPLICAS_KILL_PID')}), the leader of webhook-service.attempts`,
      );
    }
    if (Date.now() - lastProgress >= 5000) {
      lastProgress = Date.now();
      const latencies = submitted.map((record) => record.ms);
      say(
        `stream: t=${((lastProgress - started) / 1000).toFixed(0)} s: ${submitted.length} answered, ${accepted().length} accepted, ` +
          `p50 ${percentile(latencies, 50)} ms, max ${Math.max(0, ...latencies)} ms; ${received(receiver.received).size} of them heard of at the receiver`,
      );
    }
    await sleep(Math.max(0, started + ((n + 1) * 1000) / STREAM_RATE - Date.now()));
  }
  await Promise.all(inFlight);
  const streamEnded = Date.now();
  const latencies = submitted.map((record) => record.ms);
  const refused = submitted.filter((record) => record.answer?.status !== 201);
  const by = (header: string) =>
    [...groupBy(accepted(), (record) => record.answer!.headers.get(header) ?? '?')].map(([name, records]) => `${name} ${records.length}`).join(', ');
  say(
    `stream: ${submitted.length} submissions in ${((streamEnded - started) / 1000).toFixed(1)} s, ${accepted().length} accepted, ${refused.length} refused; ` +
      `answer p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${Math.max(0, ...latencies)} ms`,
  );
  say(`stream: accepted through ${by('x-gateway-replica')}; screened by ${by('x-upstream-replica')}`);
  for (const record of refused.slice(0, 10)) {
    say(`stream: submission ${record.n} refused: ${record.error ?? `${record.answer?.status} ${JSON.stringify(record.answer?.body)}`}`);
  }
  expect(refused.length === 0, `stream: ${refused.length} submissions were not accepted`);
  expect(killedAt > 0, 'stream: the broker node was never killed');

  const expected = new Map(accepted().map((record) => [record.answer!.body.data!.uuid, record]));
  const statusChanges = () =>
    groupBy(
      receiver.received.filter((hook) => hook.body.event === 'status_change'),
      (hook) => String(hook.body.data['flight_request_uuid']),
    );
  // Every entry of the request's history up to the status it was answered with: sequences 1 … n, the last that status.
  const complete = (uuid: string, hooks: ReceivedWebhook[] = []) => {
    const sequences = new Set(hooks.map((hook) => Number(hook.body.data['sequence'])));
    const last = Math.max(0, ...sequences);
    const status = hooks.find((hook) => Number(hook.body.data['sequence']) === last)?.body.data['status'];
    return last > 0 && sequences.size === last && status === expected.get(uuid)?.answer?.body.data?.status;
  };
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  let lastWait = Date.now();
  for (;;) {
    const byRequest = statusChanges();
    const missing = [...expected.keys()].filter((uuid) => !complete(uuid, byRequest.get(uuid)));
    if (missing.length === 0) break;
    if (Date.now() > deadline) {
      throw new Miss(
        `stream: ${missing.length} of ${expected.size} accepted submissions' status changes never all arrived within ${DELIVERY_WAIT_MS / 1000} s (${missing.slice(0, 5).join(', ')} …)`,
      );
    }
    if (Date.now() - lastWait >= 5000) {
      lastWait = Date.now();
      say(`stream: waiting for the status changes of ${missing.length} of ${expected.size} submissions`);
    }
    await sleep(250);
  }
  const allArrived = Date.now();
  await sleep(LATE_DUPLICATE_WAIT_MS);
  await receiver.close();

  const hooks = receiver.received.filter((hook) => hook.body.event === 'status_change');
  const badSignatures = hooks.filter((hook) => {
    const secret = secretOf.get(String(hook.body.data['flight_request_uuid']));
    const header = hook.headers[WEBHOOK_HEADERS.signature.toLowerCase()];
    return (
      secret === undefined ||
      !verifyWebhookSignature({ rawBody: hook.rawBody, header: typeof header === 'string' ? header : undefined, secrets: [secret] }).valid
    );
  });
  const byRequest = statusChanges();
  const twice: string[] = [];
  const histories = new Map<string, number>();
  const lags: number[] = [];
  let repeatedPosts = 0;
  for (const [uuid, record] of expected) {
    const mine = byRequest.get(uuid) ?? [];
    for (const [sequence, entry] of groupBy(mine, (hook) => String(hook.body.data['sequence']))) {
      const ids = new Set(entry.map((hook) => String(hook.headers[WEBHOOK_HEADERS.id.toLowerCase()])));
      if (ids.size !== 1) twice.push(`${uuid} #${sequence} (${ids.size} delivery ids)`);
      repeatedPosts += entry.length - ids.size;
    }
    const history = [...mine]
      .sort((a, b) => Number(a.body.data['sequence']) - Number(b.body.data['sequence']))
      .map((hook) => String(hook.body.data['status']));
    const path = [...new Set(history)].join(' → ');
    histories.set(path, (histories.get(path) ?? 0) + 1);
    const last = mine.filter((hook) => hook.body.data['status'] === record.answer!.body.data!.status);
    lags.push(Math.min(...last.map((hook) => arrivals.get(hook) ?? allArrived)) - record.answeredAt);
  }
  const unexpected = [...byRequest.keys()].filter((uuid) => !expected.has(uuid));
  say(
    `stream: ${hooks.length} status_change POSTs for ${expected.size} accepted submissions (${[...histories].map(([path, count]) => `${count} × ${path}`).join(', ')}), ` +
      `each status change under one delivery id: ${twice.length === 0 ? 'yes' : `no, ${twice.length} under several`}; ` +
      `a delivery id POSTed again ${repeatedPosts} times; all in ${((allArrived - started) / 1000).toFixed(1)} s from the stream's start, ` +
      `${((allArrived - streamEnded) / 1000).toFixed(1)} s after its last answer; signatures refused: ${badSignatures.length}`,
  );
  say(
    `stream: answer → status_change at the receiver: p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms, max ${Math.max(0, ...lags)} ms`,
  );
  expect(twice.length === 0, `stream: status_change under more than one delivery id: ${twice.slice(0, 5).join(', ')}`);
  expect(unexpected.length === 0, `stream: status_change for requests never accepted: ${unexpected.slice(0, 5).join(', ')}`);
  expect(badSignatures.length === 0, `stream: ${badSignatures.length} deliveries with a signature that does not verify`);

  const readyBy = Date.now() + READY_WAIT_MS;
  let unready = await allReady();
  while (unready.length > 0 && Date.now() < readyBy) {
    await sleep(250);
    unready = await allReady();
  }
  expect(unready.length === 0, `after the node loss, not ready within ${READY_WAIT_MS / 1000} s: ${unready.join(', ')}`);
  const watched = await readiness!.stop();
  say(
    watched.unready.size === 0
      ? `after the node loss: all ${processes.size} processes stayed ready (/readyz every 250 ms from the kill on)`
      : `after the node loss: unready for a while: ${[...watched.unready].sort().join(', ')}; all ${processes.size} ready again ` +
          `${(((watched.readyAgainAt || Date.now()) - killedAt) / 1000).toFixed(1)} s after the kill`,
  );

  const servers = await haproxyServers();
  for (const [proxy, members] of groupBy(servers, (server) => server.proxy)) {
    say(`haproxy ${proxy}: ${members.map((member) => `${member.server} ${member.status} ${member.sessions} sessions`).join(', ')}`);
  }
  const nodes = servers.filter((server) => server.proxy === 'amqp');
  expect(
    nodes.every((node) => (node.server === killNode ? node.status.startsWith('DOWN') : node.status === 'UP')),
    `haproxy does not see ${killNode} down and the other nodes up: ${JSON.stringify(nodes)}`,
  );
  const idle = servers.filter((server) => server.proxy !== 'amqp' && server.sessions === 0);
  expect(idle.length === 0, `processes the load balancer never used: ${idle.map((server) => server.server).join(', ')}`);
}

async function main(): Promise<void> {
  await zoneAcrossReplicas();
  await limitAcrossGateways();
  await brokerNodeLost();
  say('multi-replica checks: passed');
}

main().catch((error: unknown) => {
  console.error(`[replicas] FAILED: ${error instanceof Miss ? error.message : error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
