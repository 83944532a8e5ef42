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
 * declares them (defaults included), and the `settings` the indexes depend on (a TTL's
 * retention), so the Job needs no other secret of the service.
 */
export async function migrateIndexes<P extends DatabaseSettings, K extends keyof P & string = never>(
  service: string,
  serviceConfig: TObject<P>,
  registerModels: (connection: Connection, settings: Pick<Static<TObject<P>>, K & keyof Static<TObject<P>>>) => void,
  env: NodeJS.ProcessEnv = process.env,
  settings: readonly K[] = [],
): Promise<void> {
  let log: Logger | undefined;
  try {
    const properties: TProperties = {
      LOG_LEVEL: serviceConfig.properties.LOG_LEVEL,
      MONGO_URL: serviceConfig.properties.MONGO_URL,
      MONGO_DB: serviceConfig.properties.MONGO_DB,
    };
    for (const key of settings) properties[key] = serviceConfig.properties[key];
    const loaded = loadConfig(Type.Object(properties), env) as Pick<Static<TObject<P>>, K & keyof Static<TObject<P>>> & {
      LOG_LEVEL: string;
      MONGO_URL: string;
      MONGO_DB: string;
    };
    const { LOG_LEVEL, MONGO_URL, MONGO_DB } = loaded;
    log = createLogger(`${service}-migrate`, LOG_LEVEL);
    const connection = await connectMongo(MONGO_URL, MONGO_DB, log);
    registerModels(connection, loaded);
    await syncIndexes(connection);
    log.info({ db: MONGO_DB, models: Object.keys(connection.models) }, 'indexes in place');
    await connection.close();
  } catch (error) {
    exitOnStartupFailure(log, error);
  }
}
