import type { Server } from 'node:http';
import type Koa from 'koa';
import type { Connection } from 'mongoose';
import type { Registry } from 'prom-client';
import { Broker } from './broker/broker.js';
import { mongoReady } from './db/readiness.js';
import type { ReadinessCheck } from './http/health.js';
import { createMetricsRegistry } from './http/metrics.js';
import { createHttpServer } from './http/server.js';
import { createLogger, type Logger } from './logger.js';

export { repeatEvery, type PeriodicJob } from './periodic.js';

/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting connections, let
 * in-flight requests finish (bounded by the grace period), then close the
 * service's own resources (relays, consumers, broker, database) in order.
 */
export function handleShutdown(server: Server, log: Logger, graceMs: number, closeResources: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('grace period over, exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeResources();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * A rejection nobody handled or an exception nobody caught leaves the process
 * in an unknown state: log it once and exit, so the orchestrator restarts a
 * clean process (its restart count is the counter: kube_pod_container_status_restarts_total).
 * Nothing is lost by exiting: accepted writes are in the database and their
 * events in the documents' outboxes.
 */
export function exitOnUnhandledErrors(log: Logger): void {
  const crash = (kind: string) => (error: unknown) => {
    const err = error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
    log.fatal({ err, kind }, 'process crashed; exiting for a restart');
    process.exit(70);
  };
  process.on('unhandledRejection', crash('unhandledRejection'));
  process.on('uncaughtException', crash('uncaughtException'));
}

/** Turns a start-up failure (bad config, unreachable dependency) into one clear line and exit 1. */
export function exitOnStartupFailure(log: Logger | undefined, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  if (log) log.fatal({ err: message }, 'start-up failed');
  else process.stderr.write(`start-up failed: ${message}\n`);
  process.exit(1);
}

export interface ServiceBaseConfig {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  SHUTDOWN_GRACE_MS: number;
  REQUEST_TIMEOUT_MS: number;
  MAX_HEADER_BYTES: number;
  AMQP_URL: string;
  AMQP_EXCHANGE: string;
}

interface DatabaseConfig {
  MONGO_URL: string;
  MONGO_DB: string;
}

/** What every service is built from; a service whose config names a database gets its connection. */
export type ServiceResources<C extends ServiceBaseConfig> = {
  config: C;
  log: Logger;
  registry: Registry;
  broker: Broker;
  /** Tests pin the clock; production uses the wall clock. */
  now?: () => Date;
} & (C extends DatabaseConfig ? { connection: Connection } : unknown);

/** A service's composition root hands back its app and the background work of one replica. */
export interface Service {
  app: Koa;
  /** Consumers, relays and timers; runs before the server listens. */
  start(): Promise<void>;
  /** Stops them (work under way finishes); the broker and database close after. */
  stop(): Promise<void>;
}

export type CreateService<C extends ServiceBaseConfig> = (resources: ServiceResources<C>) => Service | Promise<Service>;

export interface OpenResources<C extends ServiceBaseConfig> {
  resources: ServiceResources<C>;
  close(): Promise<void>;
}

/**
 * What /readyz asks: whether the service can serve its requests, so only what
 * every request needs, its database when it has one. Not whether the broker
 * answers: writes keep their events in the documents' outboxes until it is
 * back, and consumers resume when the connection recovers, so a broker outage
 * taking every pod out of its Service would turn a delay into a full outage
 * (the broker has an alert of its own). But on a connection that is up, a
 * channel the broker closed or a consumer it cancelled, not yet reopened, is
 * this replica's fault alone: it publishes or consumes nothing while the
 * others do, so it reports not ready until the channel is back
 * (`broker_channels`). So is a consumer that is attached but dead, its handler
 * holding a message past the subscription's limit (`broker_consumers`): the
 * broker keeps handing it messages it never finishes.
 */
export function dependencyReadiness(resources: { connection?: Connection; broker: Broker }): ReadinessCheck[] {
  const { connection, broker } = resources;
  const channels: ReadinessCheck = { name: 'broker_channels', ready: () => !broker.isConnected() || broker.channelsOpen() };
  const consumers: ReadinessCheck = { name: 'broker_consumers', ready: () => broker.stalledConsumers().length === 0 };
  return connection ? [{ name: 'mongo', ready: () => mongoReady(connection) }, channels, consumers] : [channels, consumers];
}

/** Connects what a service's config names: the broker, and its database when it has one. */
export async function openResources<C extends ServiceBaseConfig>(name: string, config: C, log: Logger): Promise<OpenResources<C>> {
  const database = 'MONGO_URL' in config ? (config as C & DatabaseConfig) : undefined;
  // Loaded only by a service that has a database: mongoose and its driver are a fifth of an idle gateway's memory.
  const connection = database ? await (await import('./db/mongo.js')).connectMongo(database.MONGO_URL, database.MONGO_DB, log) : undefined;
  const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
  const resources = { config, log, registry: createMetricsRegistry(name), broker, ...(connection ? { connection } : {}) };
  return {
    resources: resources as ServiceResources<C>,
    close: async () => {
      await broker.close();
      await connection?.close();
    },
  };
}

/**
 * A service process from start to stop: read the configuration, build the
 * logger, connect the broker and database, let the composition root build
 * the service, start it, listen, and shut down gracefully on SIGTERM. Any
 * failure before listening ends the process with one clear log line.
 */
export async function runService<C extends ServiceBaseConfig>(name: string, loadConfig: () => C, create: CreateService<C>): Promise<void> {
  let log: Logger | undefined;
  try {
    const config = loadConfig();
    log = createLogger(name, config.LOG_LEVEL);
    exitOnUnhandledErrors(log);
    const opened = await openResources(name, config, log);
    const service = await create(opened.resources);
    await service.start();
    const server = createHttpServer(service.app, { requestTimeoutMs: config.REQUEST_TIMEOUT_MS, maxHeaderBytes: config.MAX_HEADER_BYTES });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, resolve);
    });
    log.info({ host: config.HOST, port: config.PORT }, 'listening');
    handleShutdown(server, log, config.SHUTDOWN_GRACE_MS, async () => {
      await service.stop();
      await opened.close();
    });
  } catch (error) {
    exitOnStartupFailure(log, error);
  }
}
