import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import type { Connection, mongo } from 'mongoose';
import { isLocalEngineOnly } from '../db/engine-gaps.js';
import { queriesOfCommand, type CommandLogEntry, type DeclaredIndex } from './index-coverage.js';

/**
 * Records the shape of every query a connection sends (find, count, distinct,
 * aggregate, findAndModify, update, delete) into an NDJSON file, for the
 * index-coverage test (`index-coverage.ts`). On only when `DB_COMMAND_LOG`
 * names the file (`scripts/test.sh` sets it for a whole run; child processes
 * inherit it). Cheap: each distinct shape is written once per process, with
 * the indexes the collection's model declares, so after the first requests
 * recording is a shape computation and a set lookup. A command that only the
 * local engine is sent (`isLocalEngineOnly`) is not MongoDB's to serve: left out.
 */
export const COMMAND_LOG_VARIABLE = 'DB_COMMAND_LOG';

/** The file to record into, when recording is on. */
export function commandLogFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env[COMMAND_LOG_VARIABLE];
  return file && file.trim() !== '' ? file : undefined;
}

/**
 * One scope per process, however often this module is loaded: connectMongo
 * loads it on demand (`import()`), and a test runner that loads the specs
 * through `require` holds a second copy of it for the specs' own imports.
 */
const UNRECORDED_SCOPE = Symbol.for('@dfc/kit/testing unrecorded');
const unrecordedScope: AsyncLocalStorage<true> = ((globalThis as Record<symbol, unknown>)[UNRECORDED_SCOPE] ??=
  new AsyncLocalStorage<true>()) as AsyncLocalStorage<true>;

/**
 * Runs `work` without recording its commands: for tests that inspect a
 * service's database through the service's own connection (counting in an
 * assertion), which are not the service's queries.
 */
export function unrecorded<T>(work: () => PromiseLike<T>): Promise<T> {
  // Awaited inside the scope: a mongoose query only starts when it is awaited.
  return unrecordedScope.run(true, async () => await work());
}

/** Starts recording the queries of `connection` (opened with `monitorCommands: true`) under the name `service`. */
export function recordCommands(connection: Connection, file: string, service: string): void {
  const written = new Set<string>();
  const indexesWritten = new Set<string>();
  const write = (entry: CommandLogEntry) => {
    const line = JSON.stringify(entry);
    if (written.has(line)) return;
    written.add(line);
    // Synchronous and rare (new shapes only): a process that exits at once loses nothing.
    appendFileSync(file, `${line}\n`);
  };
  connection.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
    if (unrecordedScope.getStore() || isLocalEngineOnly(event.command)) return;
    const queries = queriesOfCommand(event.commandName, event.command);
    for (const query of queries) {
      write({ kind: 'query', service, db: event.databaseName, ...query });
      const collection = `${event.databaseName}.${query.collection}`;
      if (indexesWritten.has(collection)) continue;
      const indexes = declaredIndexes(connection, query.collection);
      if (!indexes) continue;
      indexesWritten.add(collection);
      write({ kind: 'indexes', db: event.databaseName, collection: query.collection, indexes });
    }
  });
}

/** What the model of `collection` declares (`schema.indexes()`); undefined when no model maps it. */
function declaredIndexes(connection: Connection, collection: string): DeclaredIndex[] | undefined {
  const model = Object.values(connection.models).find((candidate) => candidate.collection.collectionName === collection);
  return model?.schema.indexes().map(([key, options]) => ({ key, unique: options.unique === true }));
}
