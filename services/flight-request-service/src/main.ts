import { Broker } from '@dfc/kit/broker';
import { connectMongo } from '@dfc/kit/db';
import { createMetricsRegistry } from '@dfc/kit/http';
import { runService } from '@dfc/kit/service';
import { loadFlightRequestServiceConfig } from './config.js';
import { createFlightRequestService } from './service.js';

const SERVICE = 'flight-request-service';

await runService(SERVICE, loadFlightRequestServiceConfig, async (config, log) => {
  const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
  const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
  const service = createFlightRequestService({ config, connection, broker, log, registry: createMetricsRegistry(SERVICE) });
  await service.start();
  log.info({ outbox_publish: config.OUTBOX_PUBLISH }, 'outbox publishing');
  return {
    app: service.app,
    close: async () => {
      await service.stop();
      await broker.close();
      await connection.close();
    },
  };
});
