import { createServer } from 'node:http';
import { Broker, connectMongo, createLogger, exitOnStartupFailure, handleShutdown, syncIndexes, type Logger } from '@dfc/kit';
import { loadWebhookConfig } from './config.js';
import { createWebhookService } from './service.js';

let log: Logger | undefined;
try {
  const config = loadWebhookConfig();
  log = createLogger('webhook-service', config.LOG_LEVEL);
  const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
  const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
  const service = createWebhookService(config, connection, broker, log);
  await syncIndexes(connection);
  await service.start();
  const server = createServer(service.app.callback());
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  log.info({ host: config.HOST, port: config.PORT }, 'webhook-service listening');
  const serviceLog = log;
  handleShutdown(server, serviceLog, config.SHUTDOWN_GRACE_MS, async () => {
    await service.stop();
    await broker.close();
    await connection.close();
    serviceLog.info('resources closed');
  });
} catch (error) {
  exitOnStartupFailure(log, error);
}
