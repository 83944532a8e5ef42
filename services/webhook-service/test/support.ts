import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createConnection, type Connection, type mongo } from 'mongoose';
import { Broker } from '@dfc/kit/broker';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { createLogger, type Logger } from '@dfc/kit/logging';
import { OutboxRelay } from '@dfc/kit/outbox';
import { createMetricsRegistry, InternalTokenSigner } from '@dfc/kit/http';
import { generateTokenKeys, listen, removeBrokerTopology, testDependencies, uniqueName, type Listening } from '@dfc/kit/testing';
import {
  INTERNAL_TOKEN_HEADER,
  newEvent,
  RoutingKeys,
  type EventEnvelope,
  type FlightRequestCascadeRejection,
  type FlightRequestReviewCompleted,
  type FlightRequestStatusChanged,
  type Principal,
} from '@dfc/contracts';
import { attemptsQueueName, eventsQueueName, loadWebhookConfig, type WebhookServiceConfig } from '../src/config.js';
import { createWebhookService, type WebhookService } from '../src/service.js';

export const TEST_ENV = {
  WEBHOOK_RETRY_SCHEDULE_MS: '50,100,200',
  ALLOW_HTTP_WEBHOOKS: 'true',
  ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LOST_SWEEP_INTERVAL_MS: '200',
  // Cool-off has its own test; elsewhere failing receivers are retried on the schedule alone.
  WEBHOOK_COOL_OFF_AFTER_FAILURES: '1000',
};

const keys = generateTokenKeys();
const signer = new InternalTokenSigner(keys.privateKeyPem);
const log: Logger = createLogger('webhook-service-test', process.env['TEST_LOG_LEVEL'] ?? 'silent');

/** A running webhook-service on a real database and broker, with its own names. */
export interface TestService {
  url: string;
  service: WebhookService;
  connection: Connection;
  broker: Broker;
  config: WebhookServiceConfig;
  /** Stops HTTP, dispatcher, broker and database connection (data stays). */
  close(): Promise<void>;
}

export interface Names {
  db: string;
  exchange: string;
  secretKey: string;
}

export function freshNames(): Names {
  return { db: uniqueName('wh_test'), exchange: uniqueName('wh_test_x'), secretKey: randomBytes(32).toString('base64') };
}

/** The environment that puts a webhook-service (in this process or its own) on the test's database and exchange. */
export async function testServiceEnv(names: Names): Promise<Record<string, string>> {
  const { mongoUrl, amqpUrl } = await testDependencies();
  return {
    MONGO_URL: mongoUrl,
    MONGO_DB: names.db,
    AMQP_URL: amqpUrl,
    AMQP_EXCHANGE: names.exchange,
    INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
    WEBHOOK_SECRET_KEY: names.secretKey,
  };
}

export async function startService(names: Names, env: Record<string, string> = {}): Promise<TestService> {
  const config = loadWebhookConfig({ ...TEST_ENV, ...(await testServiceEnv(names)), LOG_LEVEL: 'silent', ...env });
  const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log, 3);
  const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
  const service = createWebhookService({ config, connection, broker, log, registry: createMetricsRegistry('webhook-service') });
  // The index migration, as the migrate Job runs it before a rollout: start() only verifies.
  await syncIndexes(connection);
  await service.start();
  const http: Listening = await listen(service.app);
  return {
    url: http.url,
    service,
    connection,
    broker,
    config,
    async close() {
      await http.close();
      await service.stop();
      await broker.close();
      await connection.close();
    },
  };
}

/**
 * For a store a test builds itself to count its commands: a connection of its own on the service's
 * database that reports every command it sends, and an outbox relay on the service's broker.
 */
export async function monitoredStoreDeps(running: TestService, names: Names, onCommand: (event: mongo.CommandStartedEvent) => void) {
  const connection = await createConnection((await testDependencies()).mongoUrl, { dbName: names.db, monitorCommands: true }).asPromise();
  connection.getClient().on('commandStarted', onCommand);
  const relay = new OutboxRelay(running.broker, createLogger('test', 'silent'));
  return {
    connection,
    relay,
    async close() {
      await relay.stop();
      await connection.close();
    },
  };
}

/** Drops the test database, queue and exchanges. */
export async function cleanUp(names: Names): Promise<void> {
  const { mongoUrl, amqpUrl } = await testDependencies();
  const connection = await connectMongo(mongoUrl, names.db, log, 3);
  await connection.dropDatabase().catch(() => undefined);
  await connection.close();
  await removeBrokerTopology(amqpUrl, names.exchange, [
    eventsQueueName({ AMQP_EXCHANGE: names.exchange }),
    attemptsQueueName({ AMQP_EXCHANGE: names.exchange }),
  ]);
}

export function operator(operatorUuid: string = randomUUID()): Principal {
  return { sub: operatorUuid, role: 'operator', operator_uuid: operatorUuid, key_id: randomBytes(8).toString('hex') };
}

export const admin: Principal = { sub: 'admin', role: 'admin', key_id: '00000000000000ad' };
export const reviewer: Principal = { sub: 'reviewer', role: 'reviewer', authority: 'LFV', key_id: '0000000000000001' };

/** Response bodies are `any` on purpose: the tests inspect whatever came back, field by field. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls the service as the gateway would, with an internal token for `principal`. */
export async function api(base: string, principal: Principal, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: await signer.sign(principal) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** The answer waits for this too (then for delayMs). */
  hold?: Promise<void>;
}

/** A subscriber's webhook handler: records every request and answers as told. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  private server: Server | undefined;
  url = '';

  /** On a free port, or on `port` (a receiver coming up where an endpoint already points). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        const index = this.requests.push(request) - 1;
        const answer = this.answer(request, index);
        const respond = () => {
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body ?? '');
        };
        void (answer.hold ?? Promise.resolve()).then(() => setTimeout(respond, answer.delayMs ?? 0));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  /** Parsed bodies, loosely typed for assertions. */
  bodies(): Array<Record<string, any>> {
    return this.requests.map((request) => JSON.parse(request.rawBody) as Record<string, any>);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The receivers one suite starts, closed together in its `after`. */
export class Receivers {
  private readonly started: Receiver[] = [];

  /** A new receiver on a free port, or on `port`. */
  async start(port = 0): Promise<Receiver> {
    const receiver = await new Receiver().start(port);
    this.started.push(receiver);
    return receiver;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.started.map((receiver) => receiver.close()));
  }
}

/** The internal event as the flight-request-service publishes it, `sequence` (its status-history position) included. */
export type StatusChangedEvent = FlightRequestStatusChanged;

export function statusChanged(operatorUuid: string, data: Partial<StatusChangedEvent> = {}): EventEnvelope<StatusChangedEvent> {
  return newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, {
    flight_request_uuid: randomUUID(),
    operator_uuid: operatorUuid,
    previous_status: 'Pending',
    status: 'Approved',
    reason: null,
    actor: 'screening',
    changed_at: new Date().toISOString(),
    sequence: 2,
    ...data,
  });
}

export function cascadeRejection(operatorUuid: string): EventEnvelope<FlightRequestCascadeRejection> {
  const item = (id: string, status: 'rejected' | 'cascade_rejected') => ({
    id,
    kind: 'zone_authorisation',
    authority: 'LFV',
    zone_id: 'zone-1',
    status,
    reason: 'Conflicts with a TEMPORARY zone',
    decided_at: new Date().toISOString(),
  });
  return newEvent(RoutingKeys.flightRequestCascadeRejection, operatorUuid, {
    flight_request_uuid: randomUUID(),
    operator_uuid: operatorUuid,
    rejected_item: item('item-1', 'rejected'),
    cascaded_items: [item('item-2', 'cascade_rejected')],
    reason: 'Conflicts with a TEMPORARY zone',
    occurred_at: new Date().toISOString(),
  });
}

export function reviewCompleted(operatorUuid: string): EventEnvelope<FlightRequestReviewCompleted> {
  return newEvent(RoutingKeys.flightRequestReviewCompleted, operatorUuid, {
    flight_request_uuid: randomUUID(),
    operator_uuid: operatorUuid,
    outcome: 'Approved',
    items: [],
    counts: { total: 2, approved: 2, rejected: 0, cascade_rejected: 0, withdrawn: 0 },
    completed_at: new Date().toISOString(),
  });
}

export async function registerEndpoint(
  base: string,
  principal: Principal,
  url: string,
  events = ['status_change', 'cascade_rejection', 'review_complete'],
) {
  const response = await api(base, principal, 'POST', '/api/webhooks', { url, events });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as { id: string; secret: string };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
