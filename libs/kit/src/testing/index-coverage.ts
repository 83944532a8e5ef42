/**
 * Does a declared index serve a query on MongoDB? The pure half of the
 * index-coverage test: `command-log.ts` records the shape of every query the
 * services send (and the indexes their models declare) while the test suite
 * runs; `findUnservedQueries` then judges each shape by the rule below and
 * names every one that MongoDB would answer with a collection scan or an
 * in-memory sort.
 *
 * The rule (equality → sort → range, MongoDB's "ESR" guideline, made strict):
 *
 * 1. Each top-level field of the filter is classified:
 *    - equality: a plain value (`null` and whole sub-documents included) or `$eq`;
 *    - `$in`: an equality when the query has no sort, a range when it has one
 *      (a list of points followed by a sort is not one ordered index range);
 *    - range: `$gt`, `$gte`, `$lt`, `$lte`, `$ne`, `$nin`, `$exists`;
 *    - residual: anything else (`$size`, `$elemMatch`, `$regex`, `$not`, `$type`,
 *      `$all`, …): no index bounds come from it; it is checked on the fetched
 *      documents and need not be in the index.
 *    `$and` is flattened into its parent; an `$or` is served when each of its
 *    branches, together with the rest of the filter, is served; `$nor`,
 *    `$expr`, `$where` and `$text` are residual.
 * 2. Equality (or `$in`) on every key of a unique index (`_id` is one) reads
 *    at most one document (per listed value): served, whatever else the query says.
 * 3. Sort keys that are also equality fields are dropped (they are constant).
 * 4. Otherwise an index serves the query when its keys are, in order: all the
 *    equality fields (in any order), then the sort keys in the sort's order with
 *    the sort's directions (or every direction reversed), then the range fields
 *    that are not sort keys, anywhere after them (MongoDB bounds the first and
 *    filters the others on the index keys, before fetching a document).
 * 5. A query with no equality, sort or range at all reads the whole collection:
 *    never served.
 *
 * Only ascending/descending keys count; text, geo and hashed indexes serve nothing here.
 */

/** An index as a model declares it (mongoose `schema.indexes()`): keys in order, and whether it is unique. */
export interface DeclaredIndex {
  key: Record<string, unknown>;
  unique?: boolean;
}

/**
 * A filter with its values taken out: each value becomes `'?'`, operators
 * keep their names (`{ created_at: { $lt: '?' } }`), `$and`/`$or`/`$nor`
 * keep their branches. Enough to judge index use, never a stored value.
 */
export type FilterShape = { [field: string]: ShapeValue };
type ShapeValue = '?' | FilterShape | FilterShape[];

export type SortShape = Record<string, number>;

/** One query of a recorded command: the collection, what it filtered on and how it sorted. */
export interface QueryShape {
  collection: string;
  command: string;
  filter: FilterShape;
  sort?: SortShape;
}

export interface Verdict {
  served: boolean;
  /** Why it is served (the index) or why not. */
  reason: string;
}

const LOGICAL_BRANCHES = new Set(['$and', '$or', '$nor']);

/** Replaces every value of a filter by `'?'`, keeping fields, operators and logical branches. */
export function shapeOfFilter(filter: unknown): FilterShape {
  if (!isPlainObject(filter)) return {};
  const shape: FilterShape = {};
  for (const [field, value] of Object.entries(filter)) {
    if (LOGICAL_BRANCHES.has(field) && Array.isArray(value)) shape[field] = value.map(shapeOfFilter);
    else if (isRegex(value)) shape[field] = { $regex: '?' };
    else if (isOperatorObject(value)) shape[field] = Object.fromEntries(Object.keys(value).map((operator) => [operator, '?'] as const));
    else shape[field] = '?';
  }
  return shape;
}

/** The sort as `{ field: 1 | -1 }`; keys sorted by anything else (`$meta`) are left out. */
export function shapeOfSort(sort: unknown): SortShape | undefined {
  // The driver sends a sort as a Map (it keeps the keys' order); callers may pass an object.
  const entries = sort instanceof Map ? [...(sort as Map<unknown, unknown>).entries()] : isPlainObject(sort) ? Object.entries(sort) : [];
  const shape: SortShape = {};
  for (const [field, direction] of entries) {
    if (typeof field !== 'string') continue;
    if (direction === 1 || direction === -1) shape[field] = direction;
    else if (direction === 'asc' || direction === 'ascending') shape[field] = 1;
    else if (direction === 'desc' || direction === 'descending') shape[field] = -1;
  }
  return Object.keys(shape).length > 0 ? shape : undefined;
}

/**
 * The queries in one command document as the driver sends it (find, count,
 * distinct, aggregate, findAndModify, update, delete); none for any other
 * command. An aggregation is judged by its leading `$match` and the `$sort`
 * right after it; a count without a filter is answered from metadata.
 */
export function queriesOfCommand(commandName: string, command: Record<string, unknown>): QueryShape[] {
  const collection = command[commandName];
  if (typeof collection !== 'string') return [];
  const query = (filter: unknown, sort?: unknown): QueryShape => {
    const sortShape = shapeOfSort(sort);
    return { collection, command: commandName, filter: shapeOfFilter(filter), ...(sortShape ? { sort: sortShape } : {}) };
  };
  switch (commandName) {
    case 'find':
      return [query(command['filter'], command['sort'])];
    case 'count':
      return isPlainObject(command['query']) && Object.keys(command['query']).length > 0 ? [query(command['query'])] : [];
    case 'distinct':
      return [query(command['query'])];
    case 'findAndModify':
      return [query(command['query'], command['sort'])];
    case 'update':
      return statements(command['updates']).map((statement) => query(statement['q']));
    case 'delete':
      return statements(command['deletes']).map((statement) => query(statement['q']));
    case 'aggregate':
      return [aggregationQuery(command['pipeline'], query)];
    default:
      return [];
  }
}

function statements(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function aggregationQuery(pipeline: unknown, query: (filter: unknown, sort?: unknown) => QueryShape): QueryShape {
  const stages = Array.isArray(pipeline) ? pipeline.filter(isPlainObject) : [];
  const [first, second] = stages;
  if (first && '$match' in first) return query(first['$match'], second && '$sort' in second ? second['$sort'] : undefined);
  if (first && '$sort' in first) return query({}, first['$sort']);
  return query({});
}

/** The fields a conjunction of predicates bounds, by kind (residual predicates bound nothing). */
interface Predicates {
  equality: Set<string>;
  in: Set<string>;
  range: Set<string>;
}

const EQUALITY_OPERATORS = new Set(['$eq']);
const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte', '$ne', '$nin', '$exists']);

/** The filter as alternatives of conjunctions: `$and` joins, each `$or` multiplies the alternatives. */
function conjunctionsOf(filter: FilterShape): Predicates[] {
  let alternatives: Predicates[] = [{ equality: new Set(), in: new Set(), range: new Set() }];
  for (const [field, value] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(value)) {
      for (const branch of value) alternatives = combine(alternatives, conjunctionsOf(branch));
    } else if (field === '$or' && Array.isArray(value)) {
      alternatives = combine(alternatives, value.flatMap(conjunctionsOf));
    } else if (!field.startsWith('$') && !Array.isArray(value)) {
      for (const predicates of alternatives) classify(field, value, predicates);
    }
  }
  return alternatives;
}

function combine(left: Predicates[], right: Predicates[]): Predicates[] {
  return left.flatMap((a) =>
    right.map((b) => ({
      equality: new Set([...a.equality, ...b.equality]),
      in: new Set([...a.in, ...b.in]),
      range: new Set([...a.range, ...b.range]),
    })),
  );
}

function classify(field: string, value: '?' | FilterShape, into: Predicates): void {
  if (value === '?') {
    into.equality.add(field);
    return;
  }
  const operators = Object.keys(value);
  if (operators.some((operator) => EQUALITY_OPERATORS.has(operator))) into.equality.add(field);
  else if (operators.includes('$in')) into.in.add(field);
  else if (operators.some((operator) => RANGE_OPERATORS.has(operator))) into.range.add(field);
}

/** Judges one query against the indexes declared for its collection (`_id` is always there). */
export function checkQuery(query: QueryShape, declared: DeclaredIndex[]): Verdict {
  const indexes = [{ key: { _id: 1 }, unique: true }, ...declared];
  const verdicts = conjunctionsOf(query.filter).map((predicates) => checkConjunction(predicates, query.sort ?? {}, indexes));
  if (verdicts.length === 1 && verdicts[0]) return verdicts[0];
  const unserved = verdicts.find((verdict) => !verdict.served);
  return unserved
    ? { served: false, reason: `an $or branch is not served: ${unserved.reason}` }
    : { served: true, reason: 'every $or branch is served' };
}

function checkConjunction(predicates: Predicates, sortShape: SortShape, indexes: DeclaredIndex[]): Verdict {
  const pinned = (field: string) => predicates.equality.has(field) || predicates.in.has(field);
  const unique = indexes.find((index) => index.unique && Object.keys(index.key).every(pinned));
  if (unique) return { served: true, reason: `equality on the unique index ${describeKey(unique.key)}` };

  const sort = Object.entries(sortShape).filter(([field]) => !predicates.equality.has(field));
  const hasSort = sort.length > 0;
  const equality = new Set([...predicates.equality, ...(hasSort ? [] : predicates.in)]);
  const range = new Set([...predicates.range, ...(hasSort ? predicates.in : [])].filter((field) => !equality.has(field)));
  const wanted = `equality [${[...equality].join(', ')}] → sort ${describeKey(Object.fromEntries(sort))} → range [${[...range].join(', ')}]`;
  if (equality.size === 0 && !hasSort && range.size === 0) {
    return { served: false, reason: 'no equality, sort or range an index could use: a collection scan' };
  }
  const serving = indexes.find((index) => servesInOrder(Object.entries(index.key), equality, sort, range));
  return serving
    ? { served: true, reason: `${describeKey(serving.key)} serves ${wanted}` }
    : { served: false, reason: `no declared index serves ${wanted}` };
}

function servesInOrder(keys: Array<[string, unknown]>, equality: Set<string>, sort: Array<[string, number]>, range: Set<string>): boolean {
  if (keys.some(([, direction]) => direction !== 1 && direction !== -1)) return false;
  const names = keys.map(([field]) => field);
  const prefix = new Set(names.slice(0, equality.size));
  if (prefix.size !== equality.size || [...equality].some((field) => !prefix.has(field))) return false;

  const sortKeys = keys.slice(equality.size, equality.size + sort.length);
  if (sortKeys.length !== sort.length || !sortKeys.every(([field], n) => field === sort[n]?.[0])) return false;
  const sameDirection = sortKeys.every(([, direction], n) => direction === sort[n]?.[1]);
  const reversed = sortKeys.every(([, direction], n) => direction === -(sort[n]?.[1] ?? 0));
  if (!sameDirection && !reversed) return false;

  const sorted = new Set(sort.map(([field]) => field));
  const after = new Set(names.slice(equality.size + sort.length));
  return [...range].filter((field) => !sorted.has(field)).every((field) => after.has(field));
}

function describeKey(key: Record<string, unknown>): string {
  return `{${Object.entries(key)
    .map(([field, direction]) => `${field}: ${String(direction)}`)
    .join(', ')}}`;
}

/** One line of the command log: a query shape seen, or the indexes a model declares for a collection. */
export type CommandLogEntry =
  ({ kind: 'query'; service: string; db: string } & QueryShape) | { kind: 'indexes'; db: string; collection: string; indexes: DeclaredIndex[] };

/** A query no declared index serves, once per service, collection and shape (however many databases saw it). */
export interface UnservedQuery {
  service: string;
  collection: string;
  command: string;
  filter: FilterShape;
  sort?: SortShape;
  reason: string;
}

/** Every recorded query no declared index serves, each shape named once. */
export function findUnservedQueries(entries: CommandLogEntry[]): UnservedQuery[] {
  const declared = new Map<string, DeclaredIndex[]>();
  for (const entry of entries) {
    if (entry.kind === 'indexes') declared.set(`${entry.db}.${entry.collection}`, entry.indexes);
  }
  const unserved = new Map<string, UnservedQuery>();
  for (const entry of entries) {
    if (entry.kind !== 'query') continue;
    const verdict = checkQuery(entry, declared.get(`${entry.db}.${entry.collection}`) ?? []);
    if (verdict.served) continue;
    const { service, collection, command, filter, sort } = entry;
    const key = JSON.stringify([service, collection, command, filter, sort]);
    unserved.set(key, { service, collection, command, filter, ...(sort ? { sort } : {}), reason: verdict.reason });
  }
  return [...unserved.values()];
}

/** Reads an NDJSON command log; lines that are not JSON (a torn last line) are skipped. */
export function parseCommandLog(text: string): CommandLogEntry[] {
  const entries: CommandLogEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line) as CommandLogEntry);
    } catch {
      continue;
    }
  }
  return entries;
}

/** "flight-request-service flight_requests find {status: {$in}} sort {created_at: -1}: no declared index serves …" */
export function describeUnserved(query: UnservedQuery): string {
  const sort = query.sort ? ` sort ${JSON.stringify(query.sort)}` : '';
  return `${query.service} ${query.collection} ${query.command} ${JSON.stringify(query.filter)}${sort}: ${query.reason}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return !(value instanceof Date) && !(value instanceof RegExp) && !isBinaryLike(value);
}

/** Driver values (ObjectId, Decimal128, Binary, …) are values, not sub-filters. */
function isBinaryLike(value: object): boolean {
  return '_bsontype' in value;
}

function isRegex(value: unknown): boolean {
  return value instanceof RegExp || (typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'BSONRegExp');
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}
