import type { Server } from 'node:http';
import type { Logger } from 'pino';

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
