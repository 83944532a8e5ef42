import { createServer } from 'node:http';
import { Broker, connectMongo, createLogger, createMetricsRegistry, exitOnStartupFailure, handleShutdown, type Logger } from '@dfc/kit';
import { loadFlightRequestServiceConfig } from './config.js';
import { createFlightRequestService } from './service.js';

const SERVICE = 'flight-request-service';

async function main(): Promise<void> {
  let log: Logger | undefined;
  try {
    const config = loadFlightRequestServiceConfig();
    log = createLogger(SERVICE, config.LOG_LEVEL);
    const connection = await connectMongo(config.MONGO_URL, config.MONGO_DB, log);
    const broker = await Broker.connect(config.AMQP_URL, config.AMQP_EXCHANGE, log);
    const registry = createMetricsRegistry(SERVICE);
    const service = createFlightRequestService({ config, connection, broker, log, registry });
    await service.start();
    const server = createServer(service.app.callback());
    await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
    log.info({ host: config.HOST, port: config.PORT, outbox_publish: config.OUTBOX_PUBLISH }, 'listening');
    handleShutdown(server, log, config.SHUTDOWN_GRACE_MS, async () => {
      await service.stop();
      await broker.close();
      await connection.close();
    });
  } catch (error) {
    exitOnStartupFailure(log, error);
  }
}

void main();
