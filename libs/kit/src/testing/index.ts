import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type Koa from 'koa';
import { createHttpServer, DEFAULT_HTTP_SERVER_LIMITS, type HttpServerLimits } from '../http/server.js';

/**
 * Test support shared by every workspace. Integration tests use the real
 * database and broker: a Docker engine gives testcontainers; otherwise the
 * servers named by MONGO_URL / AMQP_URL (the test command starts them).
 */
export interface TestDependencies {
  mongoUrl: string;
  amqpUrl: string;
}

let dependencies: Promise<TestDependencies> | undefined;

export function testDependencies(): Promise<TestDependencies> {
  dependencies ??= resolveDependencies();
  return dependencies;
}

async function resolveDependencies(): Promise<TestDependencies> {
  const { MONGO_URL, AMQP_URL } = process.env;
  if (MONGO_URL && AMQP_URL) return { mongoUrl: MONGO_URL, amqpUrl: AMQP_URL };
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    throw new Error('No Docker engine and no MONGO_URL/AMQP_URL: run the tests with `npm test`, which starts the local stack.');
  }
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
  const [mongo, rabbit] = await Promise.all([new MongoDBContainer('mongo:7').start(), new RabbitMQContainer('rabbitmq:3.13').start()]);
  return { mongoUrl: `${mongo.getConnectionString()}?directConnection=true`, amqpUrl: rabbit.getAmqpUrl() };
}

/** A name no other test run uses: databases, exchanges and queues stay apart. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

export function generateTokenKeys(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

export interface Listening {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves a koa app on a free loopback port, on the same server setup as production. */
export async function listen(app: Koa, limits: HttpServerLimits = DEFAULT_HTTP_SERVER_LIMITS): Promise<Listening> {
  const server = createHttpServer(app, limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export * from './wait-for.js';
export * from './half-sent-body.js';
export * from './events.js';
export * from './broker-topology.js';
export * from './index-coverage.js';
export { commandLogFile, unrecorded } from './command-log.js';
