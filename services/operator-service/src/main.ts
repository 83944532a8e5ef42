import { createServer } from 'node:http';
import {
  Broker,
  connectMongo,
  createLogger,
  createMetricsRegistry,
  exitOnStartupFailure,
  handleShutdown,
  InternalTokenVerifier,
  syncIndexes,
  type Logger,
} from '@dfc/kit';
import { buildApp } from './app.js';
import { loadServiceConfig } from './config.js';
import { bootstrapAdminKey } from './use-cases/bootstrap-admin-key.js';
import { wireService } from './wiring.js';

const SERVICE = 'operator-service';

async function main(): Promise<void> {
  let log: Logger | undefined;
  try {
    const config = loadServiceConfig();
    log = createLogger(SERVICE, config.LOG_LEVEL);
    const registry = createMetricsRegistry(SERVICE);
    const verifier = new InternalTokenVerifier(config.INTERNAL_TOKEN_PUBLIC_KEY);
    const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
    const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
    const { useCases, publisher, readiness } = wireService({
      connection,
      broker,
      log,
      registry,
      argon2: {
        memoryCostKib: config.ARGON2_MEMORY_KIB,
        timeCost: config.ARGON2_TIME_COST,
        parallelism: config.ARGON2_PARALLELISM,
      },
    });
    await syncIndexes(connection);
    const adminKeyId = await bootstrapAdminKey(useCases, config.ADMIN_API_KEY);
    log.info({ key_id: adminKeyId }, 'bootstrap admin key in place');
    publisher.relay.start();

    const app = buildApp({ log, registry, verifier, readiness, useCases });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
    log.info({ host: config.HOST, port: config.PORT }, 'listening');
    handleShutdown(server, log, config.SHUTDOWN_GRACE_MS, async () => {
      await publisher.relay.stop();
      await broker.close();
      await connection.close();
    });
  } catch (error) {
    exitOnStartupFailure(log, error);
  }
}

void main();
