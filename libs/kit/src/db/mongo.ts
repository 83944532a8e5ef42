import mongoose, { type Connection, type Model, type QueryFilter } from 'mongoose';
import type { Logger } from 'pino';
import { createDeclaredIndexes, missingIndexes, retimeTtlIndexes } from './engine-gaps.js';

/**
 * A mongoose connection of the service's own (one database per service).
 * The first connect is retried with backoff so a service started before its
 * database simply waits; afterwards the driver reconnects by itself. With
 * `DB_COMMAND_LOG` set, its queries are recorded for the index-coverage test
 * under the logger's `service` name (the database's name when it has none):
 * the recorder is test instrumentation (`testing/command-log.ts`), loaded only
 * then, so a production process never loads it.
 */
export async function connectMongo(url: string, dbName: string, log: Logger, attempts = 60): Promise<Connection> {
  const recorder = process.env['DB_COMMAND_LOG'] ? await import('../testing/command-log.js') : undefined;
  const commandLog = recorder?.commandLogFile();
  const connection = mongoose.createConnection();
  connection.on('disconnected', () => log.warn('mongo disconnected'));
  connection.on('reconnected', () => log.info('mongo reconnected'));
  for (let attempt = 1; ; attempt++) {
    try {
      await connection.openUri(url, { dbName, serverSelectionTimeoutMS: 5000, autoIndex: false, monitorCommands: commandLog !== undefined });
      if (recorder && commandLog) recorder.recordCommands(connection, commandLog, serviceName(log) ?? dbName);
      log.info({ db: dbName }, 'mongo connected');
      return connection;
    } catch (error) {
      if (attempt >= attempts) throw error;
      log.warn({ attempt, err: (error as Error).message }, 'mongo not reachable yet, retrying');
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 200 * attempt)));
    }
  }
}

function serviceName(log: Logger): string | undefined {
  const { service } = log.bindings() as { service?: unknown };
  return typeof service === 'string' ? service : undefined;
}

/** Builds the indexes the models declare (a TTL index changed in the model gets its new time). Idempotent. */
export async function syncIndexes(connection: Connection): Promise<void> {
  for (const model of Object.values(connection.models)) {
    await retimeTtlIndexes(model);
    await createDeclaredIndexes(model);
  }
}

/**
 * Checks that every index the models declare exists (the migration Job, `npm run migrate`,
 * builds them before a rollout; replicas never build indexes themselves). A missing index
 * refuses the start: without its unique indexes the service could store duplicates, and
 * without the others its queries scan. The pod exits, so a rollout whose migration has not
 * run yet stops there and the previous version keeps serving.
 */
export async function verifyIndexes(connection: Connection): Promise<void> {
  const missing: string[] = [];
  for (const model of Object.values(connection.models)) missing.push(...(await missingIndexes(model)));
  if (missing.length > 0) {
    throw new Error(`indexes missing (run the index migration, npm run migrate): ${missing.join('; ')}`);
  }
}

/**
 * How many documents match: a filtered count walks its index; counting everything
 * reads the collection's metadata instead (a count of `{}` would read every document).
 */
export function countMatching<T>(model: Model<T>, filter: QueryFilter<T>): Promise<number> {
  return (Object.keys(filter).length === 0 ? model.estimatedDocumentCount() : model.countDocuments(filter)).exec();
}

/**
 * How many documents match, counted up to `limit` (a list's total past it would cost a walk of
 * the whole index for a figure no pager needs), within `maxTimeMS`.
 */
export function countUpTo<T>(model: Model<T>, filter: QueryFilter<T>, limit: number, maxTimeMS: number): Promise<number> {
  return model.countDocuments(filter, { limit, maxTimeMS }).exec();
}
