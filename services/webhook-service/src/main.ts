import { Broker } from '@dfc/kit/broker';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { runService } from '@dfc/kit/service';
import { loadWebhookConfig } from './config.js';
import { createWebhookService } from './service.js';

await runService('webhook-service', loadWebhookConfig, async (config, log) => {
  const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
  const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
  const service = createWebhookService(config, connection, broker, log);
  await syncIndexes(connection);
  await service.start();
  return {
    app: service.app,
    close: async () => {
      await service.stop();
      await broker.close();
      await connection.close();
    },
  };
});
