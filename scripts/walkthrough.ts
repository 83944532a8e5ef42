/**
 * The README's walkthrough, run against any running system and checked at every step: what CI runs
 * against the containerised gateway (scripts/ci/image.sh, compose.sh, kube.sh) and what an SRE runs
 * after a deployment.
 *
 *   GATEWAY_URL=http://127.0.0.1:8080 ADMIN_API_KEY=dfc_... npx tsx scripts/walkthrough.ts
 *
 * Register → key → read → subscribe a webhook (the example receiver, started here with the secret)
 * → submit (Approved by screening) → read with geometry → list with filters → [midway command] →
 * sample zones → reviewer key → submit inside the Schiphol CTR (Pending) → review item → approve →
 * preview → signed authorisation, JWKS, its status → cancel both. Then every webhook the steps caused
 * must reach the receiver, signature verified, each once.
 *
 * WALKTHROUGH_RECEIVER  shell command that runs the example receiver with WEBHOOK_SECRET and PORT from
 *                       its environment (default: tsx examples/webhook-receiver/server.ts here); a
 *                       deployment runs it where webhook-service reaches it on loopback.
 * WALKTHROUGH_RECEIVER_PORT  its port (9000).
 * WALKTHROUGH_MIDWAY    shell command run once mid-way (CI kills and restarts a service container
 *                       there); the walkthrough goes on only when it has succeeded.
 * Exits non-zero, naming the step, on the first thing that differs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { flightRequestExample } from '@dfc/contracts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const gateway = (process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const adminKey = process.env['ADMIN_API_KEY'] ?? 'dfc_00000000000000ad_local-development-admin-key-change-me-00000';
const receiverPort = Number(process.env['WALKTHROUGH_RECEIVER_PORT'] ?? 9000);
const receiverCommand = process.env['WALKTHROUGH_RECEIVER'] ?? `"${ROOT}node_modules/.bin/tsx" examples/webhook-receiver/server.ts`;
const midwayCommand = process.env['WALKTHROUGH_MIDWAY'];
const WEBHOOK_WAIT_MS = Number(process.env['WALKTHROUGH_WEBHOOK_WAIT_MS'] ?? 90_000);

/** What the example receiver logged of a delivery it accepted. */
interface Received {
  received: string;
  data?: { flight_request_uuid?: string; status?: string };
}

class StepFailed extends Error {}

function say(message: string): void {
  console.log(`[walkthrough] ${message}`);
}

function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new StepFailed(what);
}

/** `T`: the fields the step reads, each checked where it is read; an answer without them fails that check. */
async function call<T = unknown>(
  method: string,
  path: string,
  options: { key?: string; basic?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.key) headers['X-API-Key'] = options.key;
  if (options.basic) headers['Authorization'] = `Basic ${Buffer.from(options.basic).toString('base64')}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${gateway}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? (JSON.parse(text) as unknown) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, body: body as T };
}

async function expectStatus<T>(status: number, what: string, answer: Promise<{ status: number; body: T }>): Promise<T> {
  const { status: got, body } = await answer;
  expect(got === status, `${what}: expected HTTP ${status}, got ${got} ${JSON.stringify(body).slice(0, 500)}`);
  say(`${what}: ${got}`);
  return body;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    expect(Date.now() < deadline, `${what}: not seen within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The example receiver, and what it logged it received (it refuses a bad signature with a warning). */
class Receiver {
  readonly received: Received[] = [];
  readonly refused: string[] = [];
  private constructor(private readonly child: ChildProcess) {}

  static async start(secret: string): Promise<Receiver> {
    const child = spawn('sh', ['-c', `exec ${receiverCommand}`], {
      cwd: ROOT,
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(receiverPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const receiver = new Receiver(child);
    let listening = false;
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line.includes('listening')) listening = true;
      if (line.startsWith('{')) receiver.received.push(JSON.parse(line) as Received);
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.includes('refused delivery')) receiver.refused.push(line);
      process.stderr.write(`[receiver] ${line}\n`);
    });
    let exited: number | null | undefined;
    child.on('exit', (code) => (exited = code));
    await waitFor(
      'the example receiver listening',
      () => {
        expect(exited === undefined, `the example receiver exited (${exited})`);
        return Promise.resolve(listening ? true : undefined);
      },
      60_000,
    );
    say(`the example receiver listens on port ${receiverPort}`);
    return receiver;
  }

  events(request: string, event: string, status?: string): Received[] {
    return this.received.filter(
      (entry) => entry.received === event && entry.data?.flight_request_uuid === request && (status === undefined || entry.data?.status === status),
    );
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}

/*
 * A slot of its own, some hour of the next 80 days: an earlier run's Approved flight in the same
 * area and hour would belong to another operator and make this one wait for deconfliction.
 */
const slotStart = new Date(Math.ceil((Date.now() + (24 + Math.floor(Math.random() * 80 * 24)) * 3_600_000) / 1000) * 1000);

function flightRequestBody(operator: string, email: string, corner: [number, number]): ReturnType<typeof flightRequestExample> {
  return flightRequestExample({ operatorUuid: operator, operatorEmail: email, start: slotStart, corner });
}

function runMidway(): void {
  if (!midwayCommand) return;
  say(`midway: ${midwayCommand}`);
  const result = spawnSync('sh', ['-c', midwayCommand], { stdio: 'inherit', cwd: ROOT });
  expect(result.status === 0, `the midway command failed (exit ${result.status})`);
}

async function walkthrough(): Promise<void> {
  const email = `sre-${Date.now().toString(36)}@skyline.example`;
  const password = 'correct horse battery';
  const registered = await expectStatus<{ data: { uuid: string } }>(
    201,
    '1. register an operator',
    call('POST', '/api/operators', {
      body: {
        company_name: 'Skyline Surveys',
        email,
        password,
        phone: '+31 20 555 0100',
        timezone: 'Europe/Amsterdam',
        operator_registration_number: 'NLDrpWalk0001',
      },
    }),
  );
  const operator = registered.data.uuid;
  const issued = await expectStatus<{ data: { key: string } }>(
    201,
    '2. API key with email and password',
    call('POST', `/api/operators/${operator}/api-keys`, { basic: `${email}:${password}`, body: { name: 'laptop' } }),
  );
  const key = issued.data.key;
  const read = await expectStatus<{ data: { email: string } }>(
    200,
    '3. read the operator with the key',
    call('GET', `/api/operators/${operator}`, { key }),
  );
  expect(read.data.email === email, '3. the operator record is the one registered');

  const webhook = await expectStatus<{ data: { secret: string } }>(
    201,
    '4. subscribe the example receiver',
    call('POST', '/api/webhooks', {
      key,
      body: { url: `http://127.0.0.1:${receiverPort}/webhooks`, events: ['status_change', 'cascade_rejection', 'review_complete'] },
    }),
  );
  const receiver = await Receiver.start(webhook.data.secret);
  try {
    await stepsWithReceiver(operator, email, key, receiver);
  } finally {
    receiver.stop();
  }
}

async function stepsWithReceiver(operator: string, email: string, key: string, receiver: Receiver): Promise<void> {
  const submitted = await expectStatus<{ data: { uuid: string; status: string; start_time: string } }>(
    201,
    '5. submit a flight request outside every zone',
    call('POST', '/api/flight-requests', { key, body: flightRequestBody(operator, email, [5.4, 51.0]) }),
  );
  const cleared = submitted.data.uuid;
  expect(submitted.data.status === 'Approved', `5. screening approves it (status ${submitted.data.status})`);
  const full = await expectStatus<{ data: { flight_area?: { type?: string } } }>(
    200,
    '6. read it with its geometry',
    call('GET', `/api/v1/flight-requests/${cleared}?include_geometry=true`, { key }),
  );
  expect(full.data.flight_area?.type === 'FeatureCollection', '6. the geometry comes back');
  const from = submitted.data.start_time.slice(0, 10);
  const page = await expectStatus<{ data: Array<{ uuid: string }> }>(
    200,
    '6. list with filters',
    call('GET', `/api/flight-requests?status=Pending,Approved&from_date=${from}&per_page=10&page=1`, { key }),
  );
  expect(
    page.data.some((entry) => entry.uuid === cleared),
    '6. the list holds the request',
  );

  runMidway();

  const zones = JSON.parse(await readFile(`${ROOT}services/flight-request-service/data/sample-zones.ed318.json`, 'utf8')) as unknown;
  const imported = await call('POST', '/api/zones/import', { key: adminKey, body: zones });
  expect(
    imported.status === 200 || imported.status === 201,
    `7. the sample zones import: HTTP ${imported.status} ${JSON.stringify(imported.body).slice(0, 300)}`,
  );
  say(`7. sample zones imported: ${imported.status}`);
  const reviewerKey = await expectStatus<{ data: { key: string } }>(
    201,
    '7. a reviewer key for LVNL',
    call('POST', '/api/api-keys', { key: adminKey, body: { role: 'reviewer', authority: 'LVNL', name: 'LVNL desk' } }),
  );
  const reviewer = reviewerKey.data.key;
  const inCtr = await expectStatus<{ data: { uuid: string; status: string } }>(
    201,
    '7. submit inside the Schiphol CTR',
    call('POST', '/api/flight-requests', { key, body: flightRequestBody(operator, email, [4.62, 52.33]) }),
  );
  const reviewed = inCtr.data.uuid;
  expect(inCtr.data.status === 'Pending', `7. it waits for review (status ${inCtr.data.status})`);
  const item = await waitFor('7. its review item', async () => {
    const items = await call<{ data?: Array<{ id: string; flight_request?: { uuid?: string } }> }>('GET', '/api/reviews', { key: reviewer });
    return items.body.data?.find((entry) => entry.flight_request?.uuid === reviewed);
  });
  const decided = await expectStatus<{ data: { flight_request: { status: string } } }>(
    200,
    '7. the reviewer approves',
    call('POST', `/api/reviews/${item.id}/decision`, { key: reviewer, body: { decision: 'approve', reason: 'Coordinated with the tower' } }),
  );
  expect(decided.data.flight_request.status === 'Approved', '7. the request is Approved');

  const preview = await expectStatus<{ data: { review_items?: unknown } }>(
    200,
    '8. preview a submission',
    call('POST', '/api/flight-requests/preview', { key, body: flightRequestBody(operator, email, [4.62, 52.33]) }),
  );
  expect(Array.isArray(preview.data.review_items) && preview.data.review_items.length > 0, '8. the preview names the review it would need');

  const authorisation = await expectStatus<{ data: { kid: string; jti: string } }>(
    200,
    '9. the signed authorisation',
    call('GET', `/api/v1/flight-requests/${cleared}/authorisation`, { key }),
  );
  const jwks = await expectStatus<{ keys: Array<{ kid: string }> }>(200, '9. the public keys', call('GET', '/.well-known/jwks.json'));
  expect(
    jwks.keys.some((jwk) => jwk.kid === authorisation.data.kid),
    '9. the JWKS holds the token’s kid',
  );
  const valid = await expectStatus<{ data: { status: string } }>(
    200,
    '9. the authorisation’s status',
    call('GET', `/api/v1/authorisations/${authorisation.data.jti}`),
  );
  expect(valid.data.status === 'valid', '9. it is valid');

  for (const uuid of [cleared, reviewed]) {
    const cancelled = await expectStatus<{ data: { status: string } }>(
      200,
      '6. cancel a request',
      call('DELETE', `/api/flight-requests/${uuid}`, { key, body: { reason: 'Weather' } }),
    );
    expect(cancelled.data.status === 'Cancelled', '6. it is Cancelled');
  }

  const expected: Array<[string, string, string | undefined]> = [
    [cleared, 'status_change', 'Approved'],
    [cleared, 'status_change', 'Cancelled'],
    [reviewed, 'status_change', 'Approved'],
    [reviewed, 'status_change', 'Cancelled'],
    [reviewed, 'review_complete', undefined],
  ];
  await waitFor(
    'every webhook at the receiver',
    () => Promise.resolve(expected.every(([uuid, event, status]) => receiver.events(uuid, event, status).length > 0) ? true : undefined),
    WEBHOOK_WAIT_MS,
  );
  expect(receiver.refused.length === 0, `the receiver refused deliveries: ${receiver.refused.join('; ')}`);
  for (const [uuid, event, status] of expected) {
    expect(receiver.events(uuid, event, status).length === 1, `${event} ${status ?? ''} of ${uuid} arrived more than once`);
  }
  say(`webhooks: ${receiver.received.length} signed deliveries verified by the example receiver, each once`);
}

walkthrough().then(
  () => say('passed'),
  (error: unknown) => {
    console.error(`[walkthrough] FAILED: ${error instanceof StepFailed ? error.message : error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
