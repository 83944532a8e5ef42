import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { InternalTokenSigner } from '@dfc/kit/http';
import { generateTokenKeys, removeBrokerTopology, testDependencies, uniqueName, waitFor } from '@dfc/kit/testing';
import { INTERNAL_TOKEN_HEADER } from '@dfc/contracts';
import { generateApiKey } from '../src/security/api-key-secrets.js';

const SERVICE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

function run(env: Record<string, string>, entry = 'src/main.ts') {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: SERVICE_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited, output: () => output };
}

describe('operator-service main (a real process)', function () {
  this.timeout(60_000);

  it('when ADMIN_API_KEY is missing, then it exits 1 with a message naming it', async () => {
    const started = run({ INTERNAL_TOKEN_PUBLIC_KEY: generateTokenKeys().publicKeyPem });
    expect(await started.exited).to.equal(1);
    expect(started.output()).to.include('ADMIN_API_KEY is required');
  });

  it('when the index migration has not run, then it refuses to start, naming the missing indexes', async () => {
    const { mongoUrl, amqpUrl } = await testDependencies();
    const database = uniqueName('test_operators_unmigrated');
    const started = run({
      PORT: String(await freePort()),
      MONGO_URL: mongoUrl,
      MONGO_DB: database,
      AMQP_URL: amqpUrl,
      AMQP_EXCHANGE: uniqueName('test_operator_main'),
      INTERNAL_TOKEN_PUBLIC_KEY: generateTokenKeys().publicKeyPem,
      ADMIN_API_KEY: generateApiKey().key,
    });
    expect(await started.exited).to.equal(1);
    expect(started.output()).to.include('indexes missing (run the index migration, npm run migrate)');
    expect(started.output()).to.include('api_keys');
    await dropDatabase(mongoUrl, database);
  });

  it('when configured and migrated, then it becomes ready, knows the admin key, and stops cleanly on SIGTERM', async () => {
    const { mongoUrl, amqpUrl } = await testDependencies();
    const keys = generateTokenKeys();
    const adminKey = generateApiKey().key;
    const port = await freePort();
    const database = uniqueName('test_operators_main');
    const migration = run({ MONGO_URL: mongoUrl, MONGO_DB: database }, 'src/migrate.ts');
    expect(await migration.exited, migration.output()).to.equal(0);
    const exchange = uniqueName('test_operator_main');
    const service = run({
      PORT: String(port),
      MONGO_URL: mongoUrl,
      MONGO_DB: database,
      AMQP_URL: amqpUrl,
      AMQP_EXCHANGE: exchange,
      INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'info',
    });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 30_000, 200);
      const token = await new InternalTokenSigner(keys.privateKeyPem).sign({ sub: 'gateway', role: 'system' });
      const reply = await fetch(`${base}/internal/api-keys/verify`, {
        method: 'POST',
        headers: { [INTERNAL_TOKEN_HEADER]: token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: adminKey }),
      });
      expect(reply.status).to.equal(200);
      expect(((await reply.json()) as { data: { role: string } }).data.role).to.equal('admin');
    } finally {
      service.child.kill('SIGTERM');
    }
    expect(await service.exited).to.equal(0);
    expect(service.output()).not.to.include(adminKey);
    const lines = service
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; service: string });
    expect(lines.map((line) => line.msg)).to.include.members(['listening', 'shutting down', 'stopped']);
    expect(lines.every((line) => line.service === 'operator-service')).to.equal(true);
    await dropDatabase(mongoUrl, database);
    await removeBrokerTopology(amqpUrl, exchange);
  });
});

async function dropDatabase(mongoUrl: string, name: string): Promise<void> {
  const mongoose = await import('mongoose');
  const connection = await mongoose.default.createConnection(mongoUrl, { dbName: name }).asPromise();
  await connection.dropDatabase();
  await connection.close();
}
