/**
 * What the local database engine lacks, covered in this one place.
 *
 * Production runs MongoDB. Without Docker or `mongod`, the local stack runs
 * FerretDB 1.24 on PostgreSQL, which differs from MongoDB in three ways that
 * matter here, two to the write path and one to reads (docs/architecture.md,
 * "The local engine"):
 *
 * 1. Its single-document conditional writes are not atomic: 20 concurrent
 *    `findOneAndUpdate({ _id, version: 0 }, …)` can all succeed. Every
 *    conditional write of a document therefore runs behind a per-document
 *    lock in this process. With one replica of each service (the local
 *    setup) that makes them atomic; on MongoDB, which is atomic across
 *    replicas by itself, the lock only saves the losers of a race a retry.
 * 2. A unique index refusing an *update* is reported with its own error text
 *    rather than MongoDB's code 11000.
 * 3. It filters `$in` itself, over the whole collection (15 ids among 20,000
 *    documents: 1 s), while an equality is served by an index (15 of them in
 *    parallel: 40 ms). `findWhereIn` sends one or the other.
 */
import type { Connection, Model, ProjectionType, QueryFilter } from 'mongoose';

const tails = new Map<string, Promise<void>>();

/** Runs `write` after every earlier write of the same document in this process has finished. */
export function serialisedPerDocument<T>(collection: string, id: unknown, write: () => Promise<T>): Promise<T> {
  const key = `${collection}\u0000${String(id)}`;
  const previous = tails.get(key) ?? Promise.resolve();
  const result = previous.then(write);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return result;
}

const DUPLICATE_KEY = 11000;

/** A unique index refused the write (MongoDB's E11000, or the local engine's wording of it). */
export function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, writeErrors } = error as { code?: unknown; message?: unknown; writeErrors?: Array<{ code?: unknown }> };
  if (code === DUPLICATE_KEY) return true;
  if (Array.isArray(writeErrors) && writeErrors.length > 0) return writeErrors.every((entry) => entry.code === DUPLICATE_KEY);
  return typeof message === 'string' && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(message);
}

/**
 * The positions an unordered `insertMany` left out because a unique index
 * refused them; rethrows `error` when anything else went wrong.
 */
export function refusedAsDuplicates(error: unknown): Set<number> {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  const entries = Array.isArray(writeErrors) ? (writeErrors as Array<{ index?: unknown }>) : [];
  if (entries.length === 0 || !isDuplicateKey(error)) throw error;
  return new Set(entries.map((entry) => Number(entry.index)));
}

const inServedByIndexes = new WeakMap<Connection, Promise<boolean>>();

/**
 * Whether the engine behind `connection` serves `$in` from an index: MongoDB does, FerretDB (which
 * names itself in buildInfo) does not. Asked once per connection; a failed question is asked again.
 */
function servesInFromIndexes(connection: Connection): Promise<boolean> {
  const known = inServedByIndexes.get(connection);
  if (known) return known;
  const asked = connection.db!.admin().command({ buildInfo: 1 }).then((info) => !('ferretdbVersion' in info));
  inServedByIndexes.set(connection, asked);
  asked.catch(() => inServedByIndexes.delete(connection));
  return asked;
}

/**
 * The documents whose `field` equals one of `values`, in no particular order:
 * one `$in` query on MongoDB, one equality query per distinct value where the
 * engine would filter `$in` over the whole collection.
 */
export async function findWhereIn<D, T = D>(model: Model<D>, field: string, values: readonly unknown[], projection?: ProjectionType<D>): Promise<T[]> {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return [];
  const where = (condition: unknown) => ({ [field]: condition }) as QueryFilter<D>;
  if (await servesInFromIndexes(model.db)) return model.find(where({ $in: distinct }), projection).lean<T[]>().exec();
  const found = await Promise.all(distinct.map((value) => model.find(where(value), projection).lean<T[]>().exec()));
  return found.flat();
}
