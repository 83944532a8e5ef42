import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { Broker } from '@dfc/kit/broker';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { createLogger } from '@dfc/kit/logging';
import { createMetricsRegistry, InternalTokenSigner } from '@dfc/kit/http';
import { captureEvents, generateTokenKeys, listen, removeBrokerTopology, testDependencies, uniqueName, type CapturedEvents } from '@dfc/kit/testing';
import type { Principal } from '@dfc/contracts';
import { loadFlightRequestServiceConfig } from '../../src/config.js';
import { createFlightRequestService, type FlightRequestService } from '../../src/service.js';

export interface TestService {
  url: string;
  service: FlightRequestService;
  connection: Connection;
  broker: Broker;
  shared: SharedSetup;
  /** Calls the service as the gateway would, with an internal token for `principal`. */
  // Response bodies are arbitrary JSON the tests assert on field by field; `any` keeps those assertions readable.
  call(method: string, path: string, options?: CallOptions): Promise<{ status: number; body: any; headers: Headers }>;
  seedOperator(
    operator?: Partial<{ uuid: string; timezone: string | null; exemption_for_ctr: boolean; registration_number: string | null }>,
  ): Promise<string>;
  captureEvents(): Promise<CapturedEvents>;
  close(): Promise<void>;
}

export interface CallOptions {
  as?: Principal;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What two replicas of one test system share: database, exchange, token keys, the authorisation signing key. */
export interface SharedSetup {
  mongoUrl: string;
  amqpUrl: string;
  database: string;
  exchange: string;
  keys: { publicKeyPem: string; privateKeyPem: string };
  authorisationKeys: { publicKeyPem: string; privateKeyPem: string };
}

export async function newSharedSetup(): Promise<SharedSetup> {
  const { mongoUrl, amqpUrl } = await testDependencies();
  return {
    mongoUrl,
    amqpUrl,
    database: uniqueName('frs_test'),
    exchange: uniqueName('frs_events'),
    keys: generateTokenKeys(),
    authorisationKeys: generateTokenKeys(),
  };
}

export const admin: Principal = { sub: 'admin-key', role: 'admin', key_id: 'admin0000000000a' };

/** A caller without a key, as the gateway names one on its public routes. */
export const anonymous: Principal = { sub: 'anonymous', role: 'anonymous' };

export function operatorPrincipal(operatorUuid: string): Principal {
  return { sub: operatorUuid, role: 'operator', operator_uuid: operatorUuid, key_id: 'op00000000000000' };
}

export function reviewerPrincipal(authority: string): Principal {
  return { sub: `reviewer-${authority}`, role: 'reviewer', authority, key_id: 'rev0000000000000' };
}

/**
 * The service in-process on the real database and broker, as main.ts wires
 * it, with its own database and exchange (or those of `shared`, for a second
 * replica) and an optional pinned clock.
 */
export async function startTestService(options: { shared?: SharedSetup; env?: Record<string, string>; now?: () => Date } = {}): Promise<TestService> {
  const shared = options.shared ?? (await newSharedSetup());
  const config = loadFlightRequestServiceConfig({
    MONGO_URL: shared.mongoUrl,
    MONGO_DB: shared.database,
    AMQP_URL: shared.amqpUrl,
    AMQP_EXCHANGE: shared.exchange,
    INTERNAL_TOKEN_PUBLIC_KEY: shared.keys.publicKeyPem,
    AUTHORISATION_SIGNING_KEY: shared.authorisationKeys.privateKeyPem,
    LOG_LEVEL: 'silent',
    // No operator-service here: the facts come from the projection the tests seed.
    OPERATOR_FACTS: 'projection',
    ...options.env,
  });
  const log = createLogger('flight-request-service-test', process.env['TEST_LOG_LEVEL'] ?? 'silent');
  const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
  const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
  const service = createFlightRequestService({
    config,
    connection,
    broker,
    log,
    registry: createMetricsRegistry('flight-request-service'),
    ...(options.now ? { now: options.now } : {}),
  });
  // The index migration, as the migrate Job runs it before a rollout: start() only verifies.
  await syncIndexes(connection);
  await service.start();
  const server = await listen(service.app);
  const signer = new InternalTokenSigner(shared.keys.privateKeyPem);

  const call: TestService['call'] = async (method, path, callOptions = {}) => {
    const headers: Record<string, string> = { ...callOptions.headers };
    if (callOptions.as) headers['X-Internal-Token'] = await signer.sign(callOptions.as);
    if (callOptions.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(callOptions.body === undefined ? {} : { body: typeof callOptions.body === 'string' ? callOptions.body : JSON.stringify(callOptions.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };

  return {
    url: server.url,
    service,
    connection,
    broker,
    shared,
    call,
    async seedOperator(operator = {}) {
      const uuid = operator.uuid ?? randomUUID();
      await service.deps.operators.apply({
        uuid,
        timezone: operator.timezone ?? null,
        exemption_for_ctr: operator.exemption_for_ctr ?? false,
        registration_number: operator.registration_number ?? null,
        source_at: new Date(),
      });
      return uuid;
    },
    captureEvents: () => captureEvents(shared.amqpUrl, shared.exchange),
    async close() {
      await server.close();
      await service.stop();
      await broker.close();
      if (!options.shared) {
        await connection.db?.dropDatabase().catch(() => undefined);
        await removeBrokerTopology(shared.amqpUrl, shared.exchange, broker.durableQueues());
      }
      await connection.close();
    },
  };
}
