import { Broker } from '@dfc/kit/broker';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { createMetricsRegistry, InternalTokenVerifier } from '@dfc/kit/http';
import { runService } from '@dfc/kit/service';
import { buildApp } from './app.js';
import { loadServiceConfig } from './config.js';
import { bootstrapAdminKey } from './use-cases/bootstrap-admin-key.js';
import { wireService } from './wiring.js';

const SERVICE = 'operator-service';

await runService(SERVICE, loadServiceConfig, async (config, log) => {
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
  return {
    app: buildApp({ log, registry, verifier, readiness, useCases }),
    close: async () => {
      await publisher.relay.stop();
      await broker.close();
      await connection.close();
    },
  };
});
