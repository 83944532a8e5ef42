/**
 * What the local database engine lacks, covered in this one place.
 *
 * Production runs MongoDB. Without Docker or `mongod`, the local stack runs
 * FerretDB 1.24 on PostgreSQL, which differs from MongoDB in the ways that
 * matter here, to the write path and to reads (docs/architecture.md,
 * "The local engine"):
 *
 * 1. Its single-document conditional writes are not atomic: 20 concurrent
 *    `findOneAndUpdate({ _id, version: 0 }, …)` can all succeed. Every
 *    conditional write of a document therefore runs behind a per-document
 *    lock in this process; on MongoDB, which is atomic across replicas by
 *    itself, the lock only saves the losers of a race a retry. Where a rule
 *    must hold across processes (deconfliction), `acrossProcesses` also
 *    takes a write guard: a document of `engine_write_guards` whose unique
 *    `_id` names the document and the version the write starts from. Unique
 *    inserts are atomic on this engine too, so of two writers starting from
 *    one version only one writes; the guard is removed when its write
 *    returns, and one left by a crashed writer is taken over once stale.
 * 2. A unique index refusing an *update* is reported with its own error text
 *    rather than MongoDB's code 11000.
 * 3. It filters `$in` itself, over the whole collection, while an equality is
 *    served by an index. `findWhereIn` and `deleteWhereIn` send one or the other.
 * 4. It refuses TTL indexes (`expireAfterSeconds`) and expires nothing:
 *    `createDeclaredIndexes` (a model's) and `createIndexesOn` (a library's
 *    collection) build them without the option, and `expireAsTtlWould` and
 *    `expireCollectionAsTtlWould` delete what MongoDB's TTL monitor would.
 * 5. It filters a range itself, over every document its equalities select
 *    (all of the collection when there are none). `findUpTo`, the sweeps'
 *    "due by now" query, reads the last hours there by one equality each on
 *    the hour the writer stored beside the field (`withHour`).
 * 6. It sorts and counts in its own process, after decoding whole every
 *    document its equalities select: an operator's first list page decoded
 *    all of the operator's requests twice. `ListCopies` keeps there a slim copy
 *    of each document, only the fields a list filters and sorts by, written
 *    after every write of the document: a page finds its ids and count among
 *    the copies, then reads the page's documents by id.
 */
import type { Connection, Model, mongo, ProjectionType, QueryFilter } from 'mongoose';
import { driverCollection } from './driver-collection.js';

/** A model of any documents, as a connection holds them. */
type AnyModel = Connection['models'][string];

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

/** A guard older than this was left by a writer that died between taking it and writing. */
const STALE_GUARD_MS = 10_000;
/** How long a writer waits for a busy guard before it reports the document as changed meanwhile. */
const GUARD_WAIT_MS = 2_000;

interface WriteGuard {
  _id: string;
  at: Date;
}

/**
 * Runs `write`, a conditional write of one document from `version`, so that
 * no other process writes the same document from the same version at the
 * same time. On MongoDB the write is atomic by itself and runs as it is; on
 * the local engine it runs under a write guard (see 1. above). Returns null,
 * as a conditional write that matched nothing would, when another writer held
 * the version for longer than the wait.
 */
export async function acrossProcesses<T>(
  connection: Connection,
  collection: string,
  id: string,
  version: number,
  write: () => Promise<T | null>,
): Promise<T | null> {
  if (!(await isLocalEngine(connection))) return write();
  const guards = connection.db!.collection<WriteGuard>('engine_write_guards');
  const guardId = `${collection}/${id}/${version}`;
  const deadline = Date.now() + GUARD_WAIT_MS;
  for (;;) {
    const at = new Date();
    try {
      await guards.insertOne({ _id: guardId, at });
      break;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const held = await guards.findOne({ _id: guardId });
    if (held && Date.now() - held.at.getTime() > STALE_GUARD_MS) await guards.deleteOne({ _id: guardId, at: held.at });
    else if (Date.now() > deadline) return null;
    else await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));
  }
  try {
    return await write();
  } finally {
    await guards.deleteOne({ _id: guardId });
  }
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

const localEngines = new WeakMap<mongo.Db, Promise<boolean>>();

/** Whether the engine behind `connection` serves `$in` from an index: MongoDB does, the local engine does not. */
function servesInFromIndexes(connection: Connection): Promise<boolean> {
  return isLocalEngine(connection).then((local) => !local);
}

/** Whether `connection` talks to the local engine; asked once per database handle. */
function isLocalEngine(connection: Connection): Promise<boolean> {
  return isLocalDb(connection.db!);
}

/** Whether `db` is served by the local engine (FerretDB names itself in buildInfo); asked once per handle. */
function isLocalDb(db: mongo.Db): Promise<boolean> {
  const known = localEngines.get(db);
  if (known) return known;
  const asked = db
    .admin()
    .command({ buildInfo: 1 })
    .then((info) => 'ferretdbVersion' in info);
  localEngines.set(db, asked);
  asked.catch(() => localEngines.delete(db));
  return asked;
}

/**
 * The documents whose `field` equals one of `values`, in no particular order:
 * one `$in` query on MongoDB, one equality query per distinct value where the
 * engine would filter `$in` over the whole collection. `comment` goes with each query.
 */
export async function findWhereIn<D, T = D>(
  model: Model<D>,
  field: string,
  values: readonly unknown[],
  projection?: ProjectionType<D>,
  comment?: string,
): Promise<T[]> {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return [];
  const where = (condition: unknown) => ({ [field]: condition }) as QueryFilter<D>;
  if (await servesInFromIndexes(model.db))
    return model
      .find(where({ $in: distinct }), projection, comment === undefined ? {} : { comment })
      .lean<T[]>()
      .exec();
  const found = await inEqualityBatches(distinct, (value) =>
    model
      .find(where(value), projection, comment === undefined ? {} : { comment })
      .lean<T[]>()
      .exec(),
  );
  return found.flat();
}

/**
 * Equality queries in flight at once where `$in` is one query per value: the local engine serves each on a connection of its
 * own pool, and a few hundred at once exhaust it for good (every connection held, none given back).
 */
const EQUALITIES_AT_ONCE = 16;

/** `query` for each of `values`, EQUALITIES_AT_ONCE in flight at a time; the results in the values' order. */
async function inEqualityBatches<V, R>(values: readonly V[], query: (value: V) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let offset = 0; offset < values.length; offset += EQUALITIES_AT_ONCE)
    results.push(...(await Promise.all(values.slice(offset, offset + EQUALITIES_AT_ONCE).map(query))));
  return results;
}

/** Deletes the documents whose `field` equals one of `values`: one `$in` on MongoDB, one equality per value on the local engine. */
export async function deleteWhereIn<D>(model: Model<D>, field: string, values: readonly unknown[]): Promise<number> {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return 0;
  const where = (condition: unknown) => ({ [field]: condition }) as QueryFilter<D>;
  if (await servesInFromIndexes(model.db)) return (await model.deleteMany(where({ $in: distinct })).exec()).deletedCount;
  const deleted = await inEqualityBatches(distinct, (value) => model.deleteMany(where(value)).exec());
  return deleted.reduce((sum, result) => sum + result.deletedCount, 0);
}

/**
 * Builds the indexes `model` declares. The local engine refuses `expireAfterSeconds`: there a
 * TTL index is built without it (its key still orders the sweep's reads), and `expireAsTtlWould`
 * deletes what MongoDB's TTL monitor would.
 */
export async function createDeclaredIndexes(model: AnyModel): Promise<void> {
  if (!(await isLocalEngine(model.db))) {
    await model.createIndexes();
    return;
  }
  for (const [keys, options] of model.schema.indexes()) {
    const { expireAfterSeconds: _ttl, ...engineOptions } = options as Record<string, unknown>;
    await model.collection.createIndex(keys as Record<string, 1 | -1>, engineOptions);
  }
}

/** The declared indexes the database lacks, each as `<collection> <key>`. */
export async function missingIndexes(model: AnyModel): Promise<string[]> {
  const collection = model.collection.collectionName;
  if (!(await isLocalEngine(model.db))) {
    const { toCreate } = await model.diffIndexes();
    return toCreate.map((index) => `${collection} ${JSON.stringify(index)}`);
  }
  const existing: Array<Record<string, unknown>> = await model.collection
    .listIndexes()
    .toArray()
    .catch(() => []);
  const built = new Set(existing.map((index) => `${JSON.stringify(index['key'])}/${index['unique'] === true}`));
  return model.schema
    .indexes()
    .filter(([keys, options]) => !built.has(`${JSON.stringify(keys)}/${(options as { unique?: boolean }).unique === true}`))
    .map(([keys]) => `${collection} ${JSON.stringify(keys)}`);
}

/** The TTL indexes a model declares: the date field each expires documents by, and after how long. */
export function ttlIndexes(model: AnyModel): Array<{ field: string; seconds: number }> {
  return model.schema.indexes().flatMap(([keys, options]) => {
    const seconds = (options as { expireAfterSeconds?: unknown }).expireAfterSeconds;
    const fields = Object.keys(keys);
    return typeof seconds === 'number' && fields.length === 1 ? [{ field: fields[0]!, seconds }] : [];
  });
}

/**
 * On MongoDB, sets a TTL index's `expireAfterSeconds` to the declared one where the index
 * exists with another (collMod; createIndexes would refuse the change). Nothing on the local engine.
 */
export async function retimeTtlIndexes(model: AnyModel): Promise<void> {
  const declared = ttlIndexes(model);
  if (declared.length === 0 || (await isLocalEngine(model.db))) return;
  const existing: Array<Record<string, unknown>> = await model.collection
    .listIndexes()
    .toArray()
    .catch(() => []);
  for (const { field, seconds } of declared) {
    const index = existing.find((candidate) => JSON.stringify(candidate['key']) === JSON.stringify({ [field]: 1 }));
    if (index && typeof index['expireAfterSeconds'] === 'number' && index['expireAfterSeconds'] !== seconds) {
      await model.db.db!.command({ collMod: model.collection.collectionName, index: { keyPattern: { [field]: 1 }, expireAfterSeconds: seconds } });
    }
  }
}

/**
 * What MongoDB's TTL monitor does, done on the local engine (which has none): deletes the
 * documents of every model on `connection` whose TTL field is older than its index allows. One
 * `deleteMany` per index, safe from every replica at once. The number deleted; 0 on MongoDB, where
 * the server expires documents itself.
 */
export async function expireAsTtlWould(connection: Connection, now: Date = new Date()): Promise<number> {
  if (!(await isLocalEngine(connection))) return 0;
  let deleted = 0;
  for (const model of Object.values(connection.models)) {
    for (const { field, seconds } of ttlIndexes(model)) {
      const cutoff = new Date(now.getTime() - seconds * 1000);
      deleted += (await model.deleteMany({ [field]: { $lt: cutoff } } as QueryFilter<unknown>).exec()).deletedCount;
    }
  }
  return deleted;
}

/** An index of a collection a library reads and writes itself, as the driver takes it. */
export type IndexDeclaration = [keys: mongo.IndexSpecification, options: mongo.CreateIndexesOptions];

/**
 * Builds `indexes` on a collection handed to the driver directly rather than through a model (a
 * library's own collection): on the local engine without `expireAfterSeconds`, as
 * `createDeclaredIndexes` builds a model's.
 */
export async function createIndexesOn(db: mongo.Db, collection: string, indexes: readonly IndexDeclaration[]): Promise<void> {
  const local = await isLocalDb(db);
  for (const [keys, options] of indexes) {
    const { expireAfterSeconds: _ttl, ...engineOptions } = options;
    await db.collection(collection).createIndex(keys, local ? engineOptions : options);
  }
}

/**
 * What MongoDB's TTL monitor does to `collection` for a TTL index of `expireAfterSeconds` on
 * `field`, done on the local engine: deletes what it would. The number deleted; 0 on MongoDB.
 */
export async function expireCollectionAsTtlWould(
  db: mongo.Db,
  collection: string,
  { field, seconds }: { field: string; seconds: number },
  now: Date = new Date(),
): Promise<number> {
  if (!(await isLocalDb(db))) return 0;
  const cutoff = new Date(now.getTime() - seconds * 1000);
  return (await db.collection(collection).deleteMany({ [field]: { $lt: cutoff } })).deletedCount;
}

/** How often MongoDB's TTL monitor runs, and so how often a service runs `expireAsTtlWould`. */
export const TTL_MONITOR_INTERVAL_MS = 60_000;

const HOUR_MS = 3_600_000;
/** How many hours before its cutoff `findUpTo` reads by equalities on the local engine; older documents wait for a full read. */
const RECENT_HOURS = 6;
/** How often `findUpTo` reads the whole range on the local engine (and at its first call in the process): what lies further back. */
const FULL_RANGE_EVERY_MS = HOUR_MS;
const fullRangeRead = new WeakMap<AnyModel, Map<string, number>>();

/** The name of the field that holds the hour of `field` (`withHour`). */
export function hourFieldOf(field: string): string {
  return `${field}_hour`;
}

/**
 * `field` set to `date`, and beside it the hour it falls in (hours since the epoch), for `findUpTo` on the local
 * engine. Every writer of a field that a sweep finds by "due by now" writes it this way, on every engine, so that a
 * database moved between engines needs nothing rewritten.
 */
export function withHour<F extends string>(field: F, date: Date): Record<F, Date> & Record<string, Date | number> {
  return { [field]: date, [hourFieldOf(field)]: Math.floor(date.getTime() / HOUR_MS) } as Record<F, Date> & Record<string, Date | number>;
}

/**
 * Up to `limit` documents matching `equalities` whose `field` is at or before `cutoff`, oldest first: what a
 * sweep has to do by now. One index range on MongoDB. The local engine would read every document the equalities
 * select (see 5. above), so there it reads one equality per hour of the `RECENT_HOURS` up to the cutoff, on the
 * field's hour (`withHour`), and the whole range only at its first call in the process and once an hour after: a
 * document due further back (written before its hour was stored, or by a sweep that had stopped for hours) is
 * found by that read, up to an hour late.
 */
export async function findUpTo<T>(
  model: AnyModel,
  equalities: Record<string, string | number | boolean>,
  field: string,
  cutoff: Date,
  limit: number,
  projection: Record<string, 1>,
): Promise<T[]> {
  const whole = () =>
    model
      .find({ ...equalities, [field]: { $lte: cutoff } } as QueryFilter<unknown>, projection)
      .sort({ [field]: 1 })
      .limit(limit)
      .lean<T[]>()
      .exec();
  if (!(await isLocalEngine(model.db))) return whole();
  const reads = fullRangeRead.get(model) ?? new Map<string, number>();
  fullRangeRead.set(model, reads);
  const shape = JSON.stringify([field, equalities]);
  const last = reads.get(shape);
  if (last === undefined || Date.now() - last >= FULL_RANGE_EVERY_MS) {
    const found = await whole();
    reads.set(shape, Date.now());
    return found;
  }
  const newest = Math.floor(cutoff.getTime() / HOUR_MS);
  const hours = Array.from({ length: RECENT_HOURS + 1 }, (_, back) => newest - back);
  const byHour = await Promise.all(
    hours.map((hour) =>
      model
        .find({ ...equalities, [hourFieldOf(field)]: hour } as QueryFilter<unknown>, { ...projection, [field]: 1 })
        .lean<Array<Record<string, unknown>>>()
        .exec(),
    ),
  );
  const due = byHour.flat().flatMap((doc) => {
    const at = doc[field];
    return at instanceof Date && at.getTime() <= cutoff.getTime() ? [{ doc, at: at.getTime() }] : [];
  });
  due.sort((a, b) => a.at - b.at);
  return due.slice(0, limit).map(({ doc }) => doc as T);
}

/** The comment of the commands only the local engine is sent: the index-coverage test leaves them out. */
const LOCAL_ENGINE_ONLY = 'local engine only';

/** Whether a command (as the driver's command monitoring sees it) is one only the local engine is sent. */
export function isLocalEngineOnly(command: mongo.Document): boolean {
  return command['comment'] === LOCAL_ENGINE_ONLY;
}

/** A document with an id and a version, as a store writes it: what `ListCopies` copies. */
interface Versioned {
  _id: string;
  version: number;
}

/** A page of a list as a store asks for it: the query, its order and window, and how far to count (none for no count). */
export interface ListPageQuery<D> {
  filter: QueryFilter<D>;
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
  projection: ProjectionType<D>;
  countUpTo: number | undefined;
  maxTimeMS: number;
}

/** Copies a reconcile inserts in one command: small documents, far below the engine's command size. */
const COPIES_PER_INSERT = 1000;

/** The marker of a collection whose copies are complete: lists read them from then on (6. above). */
interface CopiesComplete {
  _id: string;
  at: Date;
}

/**
 * Slim copies of a collection's documents for its lists, on the local engine only (6. above); on
 * MongoDB every method does what the plain query would, or nothing. The owner's store calls
 * `written` after each write of a document and `removed` after each delete. `reconcile`, run as a
 * process starts, brings the copies in line with the documents (those of a database that had none,
 * and any a crash left behind between a write and its copy) and then marks them complete: until
 * that mark a list reads the documents themselves.
 */
export class ListCopies<D extends Versioned> {
  private complete = false;

  constructor(
    private readonly model: Model<D>,
    private readonly fields: readonly string[],
  ) {}

  /** After a write of `doc` (as it is now): its copy, unless a newer one is there already. */
  async written(doc: D): Promise<void> {
    if (!(await isLocalEngine(this.model.db))) return;
    await this.copyOf(doc);
  }

  /** After a delete of the documents `ids`: their copies go too. */
  async removed(ids: readonly string[]): Promise<void> {
    if (ids.length === 0 || !(await isLocalEngine(this.model.db))) return;
    await inEqualityBatches([...new Set(ids)], (id) => this.copies.deleteOne({ _id: id }, { comment: LOCAL_ENGINE_ONLY }));
  }

  /** A page of documents in `query.sort` order, and their number up to `query.countUpTo`. */
  async page<T extends { _id: string }>(query: ListPageQuery<D>): Promise<{ found: T[]; total: number | undefined }> {
    if (!(await this.listsFromCopies())) return this.pageOfDocuments<T>(query);
    const filter = query.filter as mongo.Filter<Versioned>;
    const [entries, total] = await Promise.all([
      this.copies
        .find(filter, {
          projection: { _id: 1 },
          sort: query.sort,
          skip: query.skip,
          limit: query.limit,
          maxTimeMS: query.maxTimeMS,
          comment: LOCAL_ENGINE_ONLY,
        })
        .toArray(),
      query.countUpTo === undefined
        ? undefined
        : this.copies.countDocuments(filter, { limit: query.countUpTo, maxTimeMS: query.maxTimeMS, comment: LOCAL_ENGINE_ONLY }),
    ]);
    const ids = entries.map((entry) => entry._id);
    const byId = new Map((await findWhereIn<D, T>(this.model, '_id', ids, query.projection, LOCAL_ENGINE_ONLY)).map((doc) => [doc._id, doc]));
    return { found: ids.flatMap((id) => byId.get(id) ?? []), total };
  }

  /**
   * Brings every copy in line with its document and marks the copies complete. The copies' versions
   * are read before the documents, so a document written meanwhile has its copy kept, not taken for
   * one left over; the documents are read a batch at a time, so only the copies' ids and versions are
   * held at once. The number of copies written or deleted; 0 on MongoDB.
   */
  async reconcile(): Promise<number> {
    if (!(await isLocalEngine(this.model.db))) return 0;
    await this.createIndexes();
    const notSeen = new Map(
      (await this.copies.find({}, { projection: { _id: 1, version: 1 }, comment: LOCAL_ENGINE_ONLY }).toArray()).map((copy) => [
        copy._id,
        copy.version,
      ]),
    );
    const projection = Object.fromEntries([...this.fields, 'version'].map((field) => [field, 1]));
    const docs = driverCollection(this.model as unknown as Model<Versioned>).find(
      {},
      { projection, batchSize: COPIES_PER_INSERT, comment: LOCAL_ENGINE_ONLY },
    );
    const missing: Versioned[] = [];
    const behind: Versioned[] = [];
    let changed = 0;
    for await (const doc of docs) {
      const version = notSeen.get(doc._id);
      notSeen.delete(doc._id);
      if (version === doc.version) continue;
      changed++;
      if (version === undefined) missing.push(doc);
      else behind.push(doc);
      if (missing.length >= COPIES_PER_INSERT) await this.insertCopies(missing.splice(0));
      if (behind.length >= COPIES_PER_INSERT) await inEqualityBatches(behind.splice(0), (doc) => this.copyOf(doc));
    }
    await this.insertCopies(missing);
    await inEqualityBatches(behind, (doc) => this.copyOf(doc));
    await this.removed([...notSeen.keys()]);
    await this.markers.updateOne({ _id: this.copiesName }, { $set: { at: new Date() } }, { upsert: true, comment: LOCAL_ENGINE_ONLY });
    this.complete = true;
    return changed + notSeen.size;
  }

  /** Inserts the copies of documents that had none. */
  private async insertCopies(docs: Versioned[]): Promise<void> {
    if (docs.length === 0) return;
    try {
      await this.copies.insertMany(
        docs.map((doc) => this.copyFields(doc)),
        { ordered: false, comment: LOCAL_ENGINE_ONLY },
      );
    } catch (error) {
      refusedAsDuplicates(error); // copied meanwhile by the write itself
    }
  }

  /** The owner's declared indexes over copied fields alone, built on the copies: their equalities are what the engine serves. */
  private async createIndexes(): Promise<void> {
    const copied = new Set([...this.fields, '_id']);
    for (const [keys] of this.model.schema.indexes()) {
      if (Object.keys(keys).every((key) => copied.has(key))) await this.copies.createIndex(keys as mongo.IndexSpecification);
    }
  }

  /** The copy of `doc`: its id, version and listed fields. */
  private copyFields(doc: Versioned): Versioned {
    const values = doc as unknown as Record<string, unknown>;
    const listed = this.fields.filter((field) => values[field] !== undefined).map((field): [string, unknown] => [field, values[field]]);
    return { ...(Object.fromEntries(listed) as Record<string, unknown>), _id: doc._id, version: doc.version };
  }

  /** Writes the copy of `doc` unless the copy is as new or newer (a writer that came later got there first). */
  private async copyOf(doc: Versioned): Promise<void> {
    const { _id: id, ...set } = this.copyFields(doc);
    const unset = this.fields.filter((field) => !(field in set));
    const update = { $set: set, ...(unset.length > 0 ? { $unset: Object.fromEntries(unset.map((field) => [field, 1 as const])) } : {}) };
    try {
      await this.copies.updateOne({ _id: id, version: { $lt: doc.version } }, update, { upsert: true, comment: LOCAL_ENGINE_ONLY });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  private pageOfDocuments<T>(query: ListPageQuery<D>): Promise<{ found: T[]; total: number | undefined }> {
    return Promise.all([
      this.model
        .find(query.filter, query.projection)
        .sort(query.sort)
        .skip(query.skip)
        .limit(query.limit)
        .maxTimeMS(query.maxTimeMS)
        .lean<T[]>()
        .exec(),
      query.countUpTo === undefined
        ? undefined
        : this.model.countDocuments(query.filter, { limit: query.countUpTo, maxTimeMS: query.maxTimeMS }).exec(),
    ]).then(([found, total]) => ({ found, total }));
  }

  /** Whether lists read the copies: on the local engine, once a reconcile (of any process) marked them complete. */
  private async listsFromCopies(): Promise<boolean> {
    if (this.complete) return true;
    if (!(await isLocalEngine(this.model.db))) return false;
    this.complete = (await this.markers.findOne({ _id: this.copiesName }, { comment: LOCAL_ENGINE_ONLY })) !== null;
    return this.complete;
  }

  private get copiesName(): string {
    return `engine_list_copies_${this.model.collection.name}`;
  }

  private get copies(): mongo.Collection<Versioned> {
    return this.model.db.db!.collection<Versioned>(this.copiesName);
  }

  private get markers(): mongo.Collection<CopiesComplete> {
    return this.model.db.db!.collection<CopiesComplete>('engine_list_copies_complete');
  }
}
