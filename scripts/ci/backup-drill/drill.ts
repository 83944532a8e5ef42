/**
 * The backup drill (scripts/ci/backup-drill.sh; docs/operations.md "Backup and restore"):
 * dump → wipe → restore on the local engine, with the README walkthrough's data, checked through the
 * API and document by document.
 *
 *  1. start the system (e2e/src/system.ts: the services as child processes on free ports, with
 *     databases and an exchange of their own) and run the walkthrough (scripts/walkthrough.ts)
 *     against its gateway;
 *  2. an API key for the walkthrough's operator (email and password, as a client gets one), and
 *     what the API shows of its data with that key and the admin key: the operator, its flight
 *     requests (with geometry), the webhook endpoint and its deliveries, the reviews, the zones;
 *  3. stop the services (the restore procedure starts with the writers stopped), record every
 *     collection: options, indexes, and a SHA-256 of each document's BSON;
 *  4. dump the three databases, drop them, check they are gone, restore them;
 *  5. every collection must read back identical (same documents, byte for byte, same indexes);
 *  6. run the index migrations, start the services, and the API must show the same as in 2; the key
 *     from 2 must still work, and the system must still take a write (a new flight request).
 * Exits non-zero, naming what differs, on the first difference.
 *
 * Environment: MONGODUMP and MONGORESTORE (paths; otherwise the stand-in of dump-tool.ts),
 * BACKUP_DRILL_DIR (where the dump goes), WALKTHROUGH_RECEIVER_PORT (29000).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import mongoose from 'mongoose';
import { startSystem, type ServiceName, type System } from '../../../e2e/src/system.js';
import { databaseTools, standIn, type DumpTool } from './dump-tool.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DIR = process.env['BACKUP_DRILL_DIR'] ?? `${ROOT}.data/ci/backup-drill`;
const RECEIVER_PORT = process.env['WALKTHROUGH_RECEIVER_PORT'] ?? '29000';
const WALKTHROUGH_PASSWORD = 'correct horse battery'; // scripts/walkthrough.ts registers with it
const DATA_SERVICES: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service'];
const ALL_SERVICES: ServiceName[] = [...DATA_SERVICES, 'gateway'];

// any: the API's answers are JSON of many shapes, compared whole.
type Json = Record<string, any>;

const started = Date.now();
function say(message: string): void {
  console.log(`[backup-drill] ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s ${message}`);
}

class DrillFailed extends Error {}
function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new DrillFailed(what);
}

async function call(system: System, method: string, path: string, options: { key?: string; basic?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.key) headers['X-API-Key'] = options.key;
  if (options.basic) headers['Authorization'] = `Basic ${Buffer.from(options.basic).toString('base64')}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
}

/** The walkthrough, as an SRE runs it after a deployment, against this system's gateway. */
async function walkthrough(system: System): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/walkthrough.ts'], {
    cwd: ROOT,
    env: { ...process.env, GATEWAY_URL: system.gatewayUrl, ADMIN_API_KEY: system.adminKey, WALKTHROUGH_RECEIVER_PORT: RECEIVER_PORT },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  const lines = output.join('').trimEnd().split('\n');
  expect(code === 0, `the walkthrough failed (exit ${code}):\n${lines.slice(-30).join('\n')}`);
  say(`walkthrough passed (${lines.find((line) => line.includes('webhooks:'))?.replace('[walkthrough] ', '') ?? lines.at(-1)})`);
}

/** What the API shows of the walkthrough's data. */
async function apiView(system: System, operator: string, key: string): Promise<Record<string, Json>> {
  const admin = system.adminKey;
  const view: Record<string, Json> = {};
  const read = async (name: string, path: string, withKey: string) => {
    const answer = await call(system, 'GET', path, { key: withKey });
    expect(answer.status === 200, `GET ${path}: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    view[name] = answer.body;
    return answer.body;
  };
  await read('operator', `/api/operators/${operator}`, key);
  const list = await read('flight requests', '/api/flight-requests?per_page=100&page=1', key);
  for (const entry of list['data'] as Json[]) {
    await read(`flight request ${entry['uuid']}`, `/api/v1/flight-requests/${entry['uuid']}?include_geometry=true`, key);
  }
  const webhooks = await read('webhook endpoints', '/api/webhooks', key);
  for (const endpoint of webhooks['data'] as Json[]) {
    await read(`webhook endpoint ${endpoint['id']}`, `/api/webhooks/${endpoint['id']}`, key);
    await read(`deliveries of ${endpoint['id']}`, `/api/webhooks/${endpoint['id']}/deliveries?per_page=100`, key);
  }
  await read('reviews', '/api/reviews', admin);
  await read('zones', '/api/zones', admin);
  return view;
}

/** Fields that change by being read (an API key's last use), left out of the comparison. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([name]) => !['last_used_at', 'request_id'].includes(name))
        .map(([name, inner]) => [name, stable(inner)]),
    );
  }
  return value;
}

interface CollectionRecord {
  options: unknown;
  indexes: unknown[];
  count: number;
  hashes: string[];
}

/** Every collection of a database: options, indexes, and each document's BSON, hashed. */
async function record(db: mongoose.mongo.Db): Promise<Record<string, CollectionRecord>> {
  const out: Record<string, CollectionRecord> = {};
  for (const info of (await db.listCollections({}, { nameOnly: false }).toArray()).sort((a, b) => a.name.localeCompare(b.name))) {
    const collection = db.collection(info.name);
    const hashes: string[] = [];
    for await (const raw of collection.find({}, { raw: true, sort: { _id: 1 } }) as AsyncIterable<unknown>) {
      hashes.push(
        createHash('sha256')
          .update(raw as Uint8Array)
          .digest('hex'),
      );
    }
    const indexes = (await collection.listIndexes().toArray())
      .map(({ v: _v, ns: _ns, ...index }) => index)
      .sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
    out[info.name] = { options: 'options' in info ? info.options : {}, indexes, count: hashes.length, hashes };
  }
  return out;
}

function describe(records: Record<string, Record<string, CollectionRecord>>): string {
  return Object.entries(records)
    .map(
      ([db, collections]) =>
        `${db}: ${Object.entries(collections)
          .map(([name, c]) => `${name} ${c.count}`)
          .join(', ')}`,
    )
    .join('; ');
}

function compareRecords(before: Record<string, CollectionRecord>, after: Record<string, CollectionRecord>, db: string): void {
  expect(
    isDeepStrictEqual(Object.keys(before), Object.keys(after)),
    `${db}: collections differ after the restore: before ${Object.keys(before).join(', ')}; after ${Object.keys(after).join(', ')}`,
  );
  for (const [name, was] of Object.entries(before)) {
    const now = after[name]!;
    expect(now.count === was.count, `${db}.${name}: ${was.count} documents before the dump, ${now.count} after the restore`);
    const missing = was.hashes.filter((hash) => !now.hashes.includes(hash)).length;
    expect(
      missing === 0 && isDeepStrictEqual(now.hashes, was.hashes),
      `${db}.${name}: ${missing} document(s) differ after the restore (BSON hashes)`,
    );
    expect(
      isDeepStrictEqual(now.indexes, was.indexes),
      `${db}.${name}: indexes differ after the restore:\n before ${JSON.stringify(was.indexes)}\n after  ${JSON.stringify(now.indexes)}`,
    );
    expect(
      isDeepStrictEqual(now.options, was.options),
      `${db}.${name}: options differ after the restore: ${JSON.stringify(was.options)} → ${JSON.stringify(now.options)}`,
    );
  }
}

function firstDifference(before: unknown, after: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(before, after)) return undefined;
  if (before && after && typeof before === 'object' && typeof after === 'object') {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const found = firstDifference((before as Json)[key], (after as Json)[key], `${path}/${key}`);
      if (found) return found;
    }
  }
  return `${path || '/'}: ${JSON.stringify(before)?.slice(0, 200)} → ${JSON.stringify(after)?.slice(0, 200)}`;
}

/**
 * BACKUP_DRILL_BREAK: a restore that lost something, to see the drill fail: `lose-document` deletes a
 * flight request, `lose-index` drops one of their indexes, `change-document` alters one field.
 */
async function breakOnPurpose(db: mongoose.mongo.Db): Promise<void> {
  const mistake = process.env['BACKUP_DRILL_BREAK'];
  if (!mistake) return;
  const requests = db.collection('flight_requests');
  if (mistake === 'lose-document') await requests.deleteOne({});
  else if (mistake === 'change-document') await requests.updateOne({}, { $set: { purpose: 'Changed by the break test' } });
  else if (mistake === 'lose-index') {
    const index = (await requests.listIndexes().toArray()).find((entry) => entry['name'] !== '_id_');
    await requests.dropIndex(String(index?.['name']));
  } else throw new Error(`unknown BACKUP_DRILL_BREAK ${mistake}`);
  say(`BACKUP_DRILL_BREAK=${mistake}: the restore was damaged on purpose; the drill must fail`);
}

/** The index migrations, as the migrate Jobs run them after a restore and before the services. */
async function migrate(system: System): Promise<void> {
  await Promise.all(
    DATA_SERVICES.map((name) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', `services/${name}/src/migrate.ts`], {
        cwd: ROOT,
        env: { PATH: process.env['PATH'] ?? '', MONGO_URL: system.mongoUrl, MONGO_DB: system.database(name), LOG_LEVEL: 'warn' },
        timeout: 60_000,
      }),
    ),
  );
}

async function drill(tool: DumpTool): Promise<void> {
  await rm(DIR, { recursive: true, force: true });
  await mkdir(DIR, { recursive: true });
  say(`dump tool: ${tool.name}`);
  const system = await startSystem({ env: { LOG_LEVEL: 'warn' } });
  const client = await new mongoose.mongo.MongoClient(system.mongoUrl).connect();
  try {
    const databases = DATA_SERVICES.map((name) => system.database(name));
    say(`system up on ${system.gatewayUrl}, databases ${databases.join(', ')}`);
    await walkthrough(system);

    // 2. The walkthrough's operator (the only one in this run's database) and a key of its own.
    const operators = await client.db(system.database('operator-service')).collection('operators').find({}).toArray();
    expect(operators.length === 1, `expected the walkthrough's one operator, found ${operators.length}`);
    const operator = operators[0]!;
    const uuid = String(operator['uuid'] ?? operator['_id']);
    const issued = await call(system, 'POST', `/api/operators/${uuid}/api-keys`, {
      basic: `${operator['email']}:${WALKTHROUGH_PASSWORD}`,
      body: { name: 'backup drill' },
    });
    expect(issued.status === 201, `an API key for the walkthrough's operator: HTTP ${issued.status} ${JSON.stringify(issued.body).slice(0, 300)}`);
    const key = issued.body['data']['key'] as string;
    const before = await apiView(system, uuid, key);
    const requests = (before['flight requests']!['data'] as Json[]).length;
    const deliveries = Object.entries(before)
      .filter(([name]) => name.startsWith('deliveries'))
      .reduce((sum, [, page]) => sum + (page['data'] as Json[]).length, 0);
    expect(
      requests >= 2 && deliveries >= 5,
      `the walkthrough's data: ${requests} flight requests, ${deliveries} deliveries (expected at least 2 and 5)`,
    );
    say(
      `API view recorded: operator ${uuid}, ${requests} flight requests, ${(before['webhook endpoints']!['data'] as Json[]).length} webhook endpoint(s), ${deliveries} deliveries`,
    );

    // 3. Writers stopped, then what the databases hold.
    for (const name of ALL_SERVICES) await system.kill(name, 'SIGTERM');
    say('services stopped');
    const recorded = Object.fromEntries(await Promise.all(databases.map(async (db) => [db, await record(client.db(db))] as const)));
    say(`recorded ${describe(recorded)}`);

    // 4. Dump, wipe, check the wipe, restore.
    let t = Date.now();
    for (const db of databases) await tool.dump(client.db(db), DIR);
    say(`dumped in ${Date.now() - t} ms into ${DIR.replace(ROOT, '')}`);
    for (const db of databases) await client.db(db).dropDatabase();
    const left = (await client.db().admin().listDatabases({ nameOnly: true })).databases
      .map((d) => d.name)
      .filter((name) => databases.includes(name));
    for (const db of databases) {
      const collections = await client.db(db).listCollections().toArray();
      expect(collections.length === 0, `${db} still has collections after the wipe: ${collections.map((c) => c.name).join(', ')}`);
    }
    say(`wiped: databases dropped${left.length ? ` (listed but empty: ${left.join(', ')})` : ''}`);
    t = Date.now();
    for (const db of databases) await tool.restore(client.db(db), DIR);
    say(`restored in ${Date.now() - t} ms`);
    await breakOnPurpose(client.db(system.database('flight-request-service')));

    // 5. Identical, collection by collection.
    for (const db of databases) compareRecords(recorded[db]!, await record(client.db(db)), db);
    say('every collection identical after the restore (document BSON hashes, counts, indexes, options)');

    // 6. Migrations, services, and the API.
    await migrate(system);
    for (const name of DATA_SERVICES) await system.start(name);
    await system.start('gateway');
    say('index migrations run, services restarted');
    const after = await apiView(system, uuid, key);
    for (const [name, view] of Object.entries(before)) {
      const difference = firstDifference(stable(view), stable(after[name]));
      expect(difference === undefined, `the API shows ${name} differently after the restore: ${difference}`);
    }
    expect(
      isDeepStrictEqual(Object.keys(after), Object.keys(before)),
      `the API lists other objects after the restore: ${Object.keys(after).join(', ')}`,
    );
    say(`the API shows the same ${Object.keys(before).length} views after the restore; the operator's key still works`);
    const login = await call(system, 'POST', `/api/operators/${uuid}/api-keys`, {
      basic: `${operator['email']}:${WALKTHROUGH_PASSWORD}`,
      body: { name: 'after restore' },
    });
    expect(login.status === 201, `the operator's password after the restore: HTTP ${login.status}`);
    const sample = before[`flight request ${(before['flight requests']!['data'] as Json[])[0]!['uuid']}`]!['data'];
    const fresh = await call(system, 'POST', '/api/flight-requests', {
      key,
      body: {
        operator_uuid: uuid,
        operator_name: sample['operator_name'],
        operator_email: operator['email'],
        operator_phone: sample['operator_phone'],
        start_time: sample['start_time'],
        end_time: sample['end_time'],
        max_altitude: sample['max_altitude'],
        aircraft_type: sample['aircraft_type'],
        purpose: 'Backup drill',
        flight_area: sample['flight_area'],
      },
    });
    expect(fresh.status === 201, `a new flight request after the restore: HTTP ${fresh.status} ${JSON.stringify(fresh.body).slice(0, 300)}`);
    say(`the restored system takes writes (new flight request ${fresh.body['data']['status']}); the operator's password still works`);
  } catch (error) {
    if (error instanceof DrillFailed) {
      for (const name of ALL_SERVICES) {
        const logs = system.logs(name);
        if (logs) console.error(`--- ${name} (last lines)\n${logs.split('\n').slice(-15).join('\n')}`);
      }
    }
    throw error;
  } finally {
    await client.close();
    await system.stop();
  }
}

const mongodump = process.env['MONGODUMP'];
const mongorestore = process.env['MONGORESTORE'];
const { mongoUrl } = await import('@dfc/kit/testing').then((kit) => kit.testDependencies());
const tool = mongodump && mongorestore ? databaseTools(mongodump, mongorestore, mongoUrl, DIR) : standIn;
drill(tool).then(
  () => {
    say('passed');
    process.exit(0);
  },
  (error: unknown) => {
    console.error(`[backup-drill] FAILED: ${error instanceof DrillFailed ? error.message : error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
