import type { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Connection } from 'mongoose';
import { Broker } from '@dfc/kit/broker';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { createMetricsRegistry, InternalTokenSigner } from '@dfc/kit/http';
import { REDACTED_PATHS, type Logger } from '@dfc/kit/logging';
import { generateTokenKeys, listen, removeBrokerTopology, testDependencies, uniqueName } from '@dfc/kit/testing';
import { INTERNAL_TOKEN_HEADER, type Principal } from '@dfc/contracts';
import type { Registry } from 'prom-client';
import { loadServiceConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/security/api-key-secrets.js';
import { createOperatorService } from '../../src/service.js';
import type { UseCaseDeps } from '../../src/use-cases/deps.js';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  // Response bodies are asserted field by field; `any` keeps those assertions short.
  body: T;
}

export interface CallOptions {
  /** The principal the internal token names; `null` sends no token at all. */
  as?: Principal | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Signs the token with a key the service does not trust. */
  forgedToken?: boolean;
}

export interface TestService {
  url: string;
  adminKey: string;
  exchange: string;
  amqpUrl: string;
  connection: Connection;
  deps: UseCaseDeps;
  registry: Registry;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  /** The internal token the gateway would send for `principal`, for requests the test writes itself. */
  token(principal: Principal): Promise<string>;
  close(): Promise<void>;
}

export const anonymous: Principal = { sub: 'anonymous', role: 'anonymous' };
export const system: Principal = { sub: 'gateway', role: 'system' };
export const admin: Principal = { sub: '00000000000000ad', role: 'admin', key_id: '00000000000000ad' };
export const reviewer: Principal = { sub: '00000000000000aa', role: 'reviewer', authority: 'LBA', key_id: '00000000000000aa' };
export function operatorPrincipal(uuid: string): Principal {
  return { sub: uuid, role: 'operator', operator_uuid: uuid, key_id: '0123456789abcdef' };
}

export function basic(email: string, password: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` };
}

/**
 * The operator-service in-process on the real database and broker, with a
 * database and an exchange of its own, and a gateway's token signer.
 */
export async function startService(options: { logStream?: Writable } = {}): Promise<TestService> {
  const { mongoUrl, amqpUrl } = await testDependencies();
  const keys = generateTokenKeys();
  const signer = new InternalTokenSigner(keys.privateKeyPem);
  const forger = new InternalTokenSigner(generateTokenKeys().privateKeyPem);
  // Bound to the service's name, as in production: the index-coverage test names its queries by it.
  const base = { service: 'operator-service' };
  const log: Logger = options.logStream
    ? pino({ level: 'trace', base, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, options.logStream)
    : pino({ level: 'silent', base });
  const exchange = uniqueName('test_operator_events');
  const adminKey = generateApiKey().key;
  const config = loadServiceConfig({
    MONGO_URL: mongoUrl,
    MONGO_DB: uniqueName('test_operators'),
    AMQP_URL: amqpUrl,
    AMQP_EXCHANGE: exchange,
    INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
    ADMIN_API_KEY: adminKey,
  });
  const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
  const broker = await Broker.connect(amqpUrl, exchange, log);
  const registry = createMetricsRegistry('operator-service');
  const service = createOperatorService({ config, connection, broker, log, registry });
  // The index migration, as the migrate Job runs it before a rollout: start() only verifies.
  await syncIndexes(connection);
  await service.start();
  const server = await listen(service.app);

  const call = async (method: string, path: string, call: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...call.headers };
    const principal = call.as === undefined ? anonymous : call.as;
    if (principal) headers[INTERNAL_TOKEN_HEADER] = await (call.forgedToken ? forger : signer).sign(principal);
    if (call.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: call.body === undefined ? undefined : typeof call.body === 'string' ? call.body : JSON.stringify(call.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };

  return {
    url: server.url,
    adminKey,
    exchange,
    amqpUrl,
    connection,
    deps: service.deps,
    registry,
    call,
    token: (principal) => signer.sign(principal),
    close: async () => {
      await server.close();
      await service.stop();
      await broker.close();
      await removeBrokerTopology(amqpUrl, exchange, broker.durableQueues());
      await connection.dropDatabase().catch(() => undefined);
      await connection.close();
    },
  };
}

let sequence = 0;

/** A valid registration body with an email no other test uses. */
export function registration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1;
  return {
    company_name: 'Skyward Surveys GmbH',
    email: `pilot-${process.pid}-${Date.now()}-${sequence}@example.com`,
    password: 'correct horse battery staple',
    phone: '+49 30 1234567',
    operational_authorisation_number: 'DEU-OAT-0001',
    operator_registration_number: 'DEU87ast4g7c2b1f',
    exemption_for_ctr: false,
    timezone: 'Europe/Berlin',
    ...overrides,
  };
}

/** Registers an operator and returns its record and password. */
export async function registerOperator(
  service: TestService,
  overrides: Record<string, unknown> = {},
): Promise<{ uuid: string; email: string; password: string; record: any }> {
  const body = registration(overrides);
  const reply = await service.call('POST', '/api/operators', { body });
  if (reply.status !== 201) throw new Error(`registration failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { uuid: reply.body.data.uuid, email: String(body['email']), password: String(body['password']), record: reply.body.data };
}

/** Issues an operator key with HTTP Basic. */
export async function issueKey(service: TestService, operator: { uuid: string; email: string; password: string }, name?: string) {
  const reply = await service.call('POST', `/api/operators/${operator.uuid}/api-keys`, {
    headers: basic(operator.email, operator.password),
    body: name === undefined ? {} : { name },
  });
  if (reply.status !== 201) throw new Error(`key issuance failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data as { id: string; key: string; last_four: string };
}
