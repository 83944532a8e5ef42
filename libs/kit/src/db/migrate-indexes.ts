import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import type { Connection } from 'mongoose';
import { commonConfig, loadConfig, mongoConfig } from '../config.js';
import { exitOnStartupFailure } from '../lifecycle.js';
import { createLogger, type Logger } from '../logger.js';
import { connectMongo, syncIndexes } from './mongo.js';

/** The part of a service's config schema the migration reads. */
type DatabaseSettings = Pick<typeof commonConfig, 'LOG_LEVEL'> & typeof mongoConfig & TProperties;

/**
 * The index migration of one service (`npm run migrate`; the `<service>-migrate` Job in k8s):
 * registers the service's models on a connection to its database and builds the indexes they
 * declare. It reads only LOG_LEVEL, MONGO_URL and MONGO_DB as the service's config schema
 * declares them (defaults included), so the Job needs no other secret of the service.
 */
export async function migrateIndexes<P extends DatabaseSettings>(
  service: string,
  serviceConfig: TObject<P>,
  registerModels: (connection: Connection) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  let log: Logger | undefined;
  try {
    const { LOG_LEVEL, MONGO_URL, MONGO_DB } = loadConfig(
      Type.Object({
        LOG_LEVEL: serviceConfig.properties.LOG_LEVEL,
        MONGO_URL: serviceConfig.properties.MONGO_URL,
        MONGO_DB: serviceConfig.properties.MONGO_DB,
      }),
      env,
    );
    log = createLogger(`${service}-migrate`, LOG_LEVEL);
    const connection = await connectMongo(MONGO_URL, MONGO_DB, log);
    registerModels(connection);
    await syncIndexes(connection);
    log.info({ db: MONGO_DB, models: Object.keys(connection.models) }, 'indexes in place');
    await connection.close();
  } catch (error) {
    exitOnStartupFailure(log, error);
  }
}
