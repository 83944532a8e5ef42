import { createServer, type Server } from 'node:http';
import { createLogger, type Logger } from './logger.js';

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

/** Turns a start-up failure (bad config, unreachable dependency) into one clear line and exit 1. */
export function exitOnStartupFailure(log: Logger | undefined, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  if (log) log.fatal({ err: message }, 'start-up failed');
  else process.stderr.write(`start-up failed: ${message}\n`);
  process.exit(1);
}

/** What a service's main hands back once its dependencies are wired. */
export interface StartedService {
  app: { callback(): Parameters<typeof createServer>[1] };
  /** Closes the service's own resources (relays, consumers, broker, database), in order. */
  close(): Promise<void>;
}

export interface ServiceBaseConfig {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  SHUTDOWN_GRACE_MS: number;
}

/**
 * A service process from start to stop: read the configuration, build the
 * logger, let `start` wire the real dependencies, listen, and shut down
 * gracefully on SIGTERM. Any failure before listening ends the process with
 * one clear log line.
 */
export async function runService<C extends ServiceBaseConfig>(
  name: string,
  loadConfig: () => C,
  start: (config: C, log: Logger) => Promise<StartedService>,
): Promise<void> {
  let log: Logger | undefined;
  try {
    const config = loadConfig();
    log = createLogger(name, config.LOG_LEVEL);
    const service = await start(config, log);
    const server = createServer(service.app.callback());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, resolve);
    });
    log.info({ host: config.HOST, port: config.PORT }, 'listening');
    handleShutdown(server, log, config.SHUTDOWN_GRACE_MS, () => service.close());
  } catch (error) {
    exitOnStartupFailure(log, error);
  }
}
