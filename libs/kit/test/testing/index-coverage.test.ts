import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  checkQuery,
  describeUnserved,
  findUnservedQueries,
  parseCommandLog,
  queriesOfCommand,
  shapeOfFilter,
  type CommandLogEntry,
  type DeclaredIndex,
  type QueryShape,
} from '../../src/testing/index-coverage.js';
import { commandLogFile } from '../../src/testing/command-log.js';

/**
 * The index-coverage test. Its unit tests judge fabricated queries against
 * fabricated indexes; the root-level `after` below runs once every spec of
 * the run has finished (mocha runs root hooks last) and fails naming each
 * query the services sent that no declared index serves on MongoDB. It needs
 * the log that `DB_COMMAND_LOG` names (scripts/test.sh sets it for the run).
 */
after('every query the services sent during the run is served by a declared index', () => {
  const file = commandLogFile();
  if (!file) return;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return; // No service sent a query in this run.
  }
  const unserved = findUnservedQueries(parseCommandLog(text));
  if (unserved.length > 0) {
    throw new Error(`${unserved.length} queries would scan or sort in memory on MongoDB:\n${unserved.map(describeUnserved).join('\n')}`);
  }
});

const query = (filter: Record<string, unknown>, sort?: Record<string, number>): QueryShape => ({
  collection: 'things',
  command: 'find',
  filter: shapeOfFilter(filter),
  ...(sort ? { sort } : {}),
});
const index = (key: Record<string, number | string>, unique = false): DeclaredIndex => ({ key, unique });

describe('index coverage: equality → sort → range', () => {
  const byOwner = index({ owner: 1, created_at: -1, _id: -1 });

  it('when the equality fields lead the index and the sort follows, then it is served', () => {
    expect(checkQuery(query({ owner: 'a' }, { created_at: -1, _id: -1 }), [byOwner]).served).to.equal(true);
  });

  it('when the sort is the index order reversed in every key, then it is served', () => {
    expect(checkQuery(query({ owner: 'a' }, { created_at: 1, _id: 1 }), [byOwner]).served).to.equal(true);
  });

  it('when only one sort direction is reversed, then the sort happens in memory', () => {
    const verdict = checkQuery(query({ owner: 'a' }, { created_at: 1, _id: -1 }), [byOwner]);
    expect(verdict.served).to.equal(false);
    expect(verdict.reason).to.include('no declared index serves');
  });

  it('when the index lacks the `_id` tie-break of the sort, then it is not served', () => {
    expect(checkQuery(query({ owner: 'a' }, { created_at: -1, _id: -1 }), [index({ owner: 1, created_at: -1 })]).served).to.equal(false);
  });

  it('when a range field sits before the sort keys, then the sort happens in memory', () => {
    const rangeFirst = index({ owner: 1, due_at: 1, created_at: -1, _id: -1 });
    expect(checkQuery(query({ owner: 'a', due_at: { $lt: 1 } }, { created_at: -1, _id: -1 }), [rangeFirst]).served).to.equal(false);
  });

  it('when the range field follows the sort keys, then it is served', () => {
    const rangeLast = index({ owner: 1, created_at: -1, _id: -1, due_at: 1 });
    expect(checkQuery(query({ owner: 'a', due_at: { $lt: 1 } }, { created_at: -1, _id: -1 }), [rangeLast]).served).to.equal(true);
  });

  it('when a range field comes later than the next key after the sort, then it is still served (filtered on the index keys)', () => {
    const windowLast = index({ owner: 1, created_at: -1, _id: -1, starts_at: 1, ends_at: 1 });
    expect(checkQuery(query({ owner: 'a', ends_at: { $gt: 1 } }, { created_at: -1, _id: -1 }), [windowLast]).served).to.equal(true);
  });

  it('when the range is on the sort key itself, then it is served', () => {
    const verdict = checkQuery(query({ pending_since: { $lte: 1 } }, { pending_since: 1 }), [index({ pending_since: 1 })]);
    expect(verdict.served).to.equal(true);
  });

  it('when an equality field is missing from the index prefix, then it is not served', () => {
    expect(checkQuery(query({ owner: 'a', status: 'x' }, { created_at: -1, _id: -1 }), [byOwner]).served).to.equal(false);
  });

  it('when the equality fields are in another order than the index, then it is still served', () => {
    const verdict = checkQuery(query({ status: 'x', owner: 'a' }), [index({ owner: 1, status: 1 })]);
    expect(verdict.served).to.equal(true);
  });

  it('when a field of the index is skipped between equality and sort, then it is not served', () => {
    const gap = index({ owner: 1, status: 1, created_at: -1, _id: -1 });
    expect(checkQuery(query({ owner: 'a' }, { created_at: -1, _id: -1 }), [gap]).served).to.equal(false);
  });

  it('when `$in` has no sort after it, then it counts as equality', () => {
    expect(checkQuery(query({ owner: { $in: ['a', 'b'] }, status: 'x' }), [index({ owner: 1, status: 1 })]).served).to.equal(true);
  });

  it('when `$in` is followed by a sort, then it counts as a range and must come after the sort keys', () => {
    const sort = { created_at: -1, _id: -1 };
    expect(checkQuery(query({ owner: { $in: ['a', 'b'] } }, sort), [byOwner]).served).to.equal(false);
    expect(checkQuery(query({ owner: { $in: ['a', 'b'] } }, sort), [index({ created_at: -1, _id: -1, owner: 1 })]).served).to.equal(true);
  });

  it('when the sort starts with the `$in` field, then the index on it and the rest of the sort serves it', () => {
    const verdict = checkQuery(query({ owner: { $in: ['a', 'b'] } }, { owner: 1, created_at: -1, _id: -1 }), [
      index({ owner: 1, created_at: -1, _id: -1 }),
    ]);
    expect(verdict.served).to.equal(true);
  });

  it('when `_id` is matched by equality, then it is served whatever else the filter says', () => {
    expect(checkQuery(query({ _id: 'k', version: 3, outbox: { $size: 0 } }), []).served).to.equal(true);
    expect(checkQuery(query({ _id: { $in: ['k', 'l'] } }), []).served).to.equal(true);
    expect(checkQuery(query({ _id: { $in: ['k'] }, lease: { $in: ['t'] } }, { at: 1 }), []).served).to.equal(true);
  });

  it('when every key of a unique index is matched by equality, then it is served', () => {
    expect(checkQuery(query({ email: 'a@b', _id: { $ne: 'x' } }), [index({ email: 1 }, true)]).served).to.equal(true);
    expect(checkQuery(query({ email: 'a@b', _id: { $ne: 'x' } }), [index({ email: 1 })]).served).to.equal(false);
  });

  it('when a sort key is also an equality field, then it is dropped from the sort', () => {
    expect(checkQuery(query({ owner: 'a' }, { owner: 1, created_at: -1, _id: -1 }), [byOwner]).served).to.equal(true);
  });

  it('when the filter is empty, then an index in the sort order serves it, and without a sort nothing does', () => {
    expect(checkQuery(query({}, { created_at: -1, _id: -1 }), [index({ created_at: -1, _id: -1 })]).served).to.equal(true);
    const verdict = checkQuery(query({}), [byOwner]);
    expect(verdict.served).to.equal(false);
    expect(verdict.reason).to.include('collection scan');
  });

  it('when only residual predicates filter, then it is a collection scan', () => {
    expect(checkQuery(query({ name: /^abc/, tags: { $size: 2 } }), [index({ name: 1 })]).served).to.equal(false);
  });

  it('when a residual predicate comes with served ones, then it does not need an index', () => {
    expect(checkQuery(query({ owner: 'a', tags: { $elemMatch: { x: 1 } } }), [index({ owner: 1 })]).served).to.equal(true);
  });

  it('when an $or has a branch no index serves, then the query is not served', () => {
    const indexes = [index({ owner: 1 }), index({ email: 1 })];
    expect(checkQuery(query({ $or: [{ owner: 'a' }, { email: 'b' }] }), indexes).served).to.equal(true);
    const verdict = checkQuery(query({ $or: [{ owner: 'a' }, { phone: 'c' }] }), indexes);
    expect(verdict.served).to.equal(false);
    expect(verdict.reason).to.include('$or branch');
  });

  it('when an $and nests the predicates, then they count as if written side by side', () => {
    expect(checkQuery(query({ $and: [{ owner: 'a' }, { due_at: { $gt: 1 } }] }), [index({ owner: 1, due_at: 1 })]).served).to.equal(true);
  });

  it('when the index is a text, geo or hashed one, then it serves nothing here', () => {
    expect(checkQuery(query({ area: 'x' }), [index({ area: '2dsphere' })]).served).to.equal(false);
  });
});

describe('index coverage: reading the commands the driver sends', () => {
  it('when a find is sent, then its filter shape and sort are kept without the values', () => {
    const [found] = queriesOfCommand('find', {
      find: 'keys',
      filter: { owner: 'secret-owner', revoked_at: null, created_at: { $lt: new Date() } },
      sort: { created_at: -1, _id: -1 },
      limit: 15,
    });
    expect(found).to.deep.equal({
      collection: 'keys',
      command: 'find',
      filter: { owner: '?', revoked_at: '?', created_at: { $lt: '?' } },
      sort: { created_at: -1, _id: -1 },
    });
    expect(JSON.stringify(found)).to.not.include('secret-owner');
  });

  it('when countDocuments runs (an aggregation), then its $match is the filter', () => {
    const pipeline = [{ $match: { owner: 'a' } }, { $group: { _id: 1, n: { $sum: 1 } } }];
    expect(queriesOfCommand('aggregate', { aggregate: 'keys', pipeline })).to.deep.equal([
      { collection: 'keys', command: 'aggregate', filter: { owner: '?' } },
    ]);
  });

  it('when an aggregation sorts right after its $match, then the sort is judged too', () => {
    const pipeline = [{ $match: { owner: 'a' } }, { $sort: { created_at: -1 } }, { $limit: 5 }];
    expect(queriesOfCommand('aggregate', { aggregate: 'keys', pipeline })[0]?.sort).to.deep.equal({ created_at: -1 });
  });

  it('when updates and deletes are sent in bulk, then each statement is a query', () => {
    const updates = [
      { q: { _id: 'a', version: 1 }, u: { $set: { x: 1 } } },
      { q: { owner: 'b' }, u: { $set: { x: 2 } } },
    ];
    expect(queriesOfCommand('update', { update: 'keys', updates }).map((found) => found.filter)).to.deep.equal([
      { _id: '?', version: '?' },
      { owner: '?' },
    ]);
    expect(queriesOfCommand('delete', { delete: 'keys', deletes: [{ q: { owner: 'c' }, limit: 0 }] })[0]?.filter).to.deep.equal({ owner: '?' });
  });

  it('when findAndModify is sent, then its query and sort are kept', () => {
    const [found] = queriesOfCommand('findAndModify', { findAndModify: 'keys', query: { _id: 'a', version: 2 }, sort: { due_at: 1 } });
    expect(found).to.deep.include({ filter: { _id: '?', version: '?' }, sort: { due_at: 1 } });
  });

  it('when another command is sent (insert, a count of everything, dropDatabase), then nothing is recorded', () => {
    expect(queriesOfCommand('insert', { insert: 'keys', documents: [{}] })).to.deep.equal([]);
    expect(queriesOfCommand('count', { count: 'keys' })).to.deep.equal([]);
    expect(queriesOfCommand('dropDatabase', { dropDatabase: 1 })).to.deep.equal([]);
  });

  it('when a value is a regular expression or a driver value, then it is a regex predicate or a plain value', () => {
    expect(shapeOfFilter({ name: /^a/, _id: { _bsontype: 'ObjectId' } })).to.deep.equal({ name: { $regex: '?' }, _id: '?' });
  });
});

describe('index coverage: the log of a run', () => {
  const entries: CommandLogEntry[] = [
    { kind: 'indexes', db: 'run_1', collection: 'keys', indexes: [{ key: { owner: 1, created_at: -1, _id: -1 }, unique: false }] },
    { kind: 'query', service: 'svc', db: 'run_1', collection: 'keys', command: 'find', filter: { owner: '?' }, sort: { created_at: -1, _id: -1 } },
    { kind: 'query', service: 'svc', db: 'run_1', collection: 'keys', command: 'find', filter: { name: '?' } },
    { kind: 'query', service: 'svc', db: 'run_2', collection: 'keys', command: 'find', filter: { name: '?' } },
    { kind: 'query', service: 'svc', db: 'run_3', collection: 'other', command: 'find', filter: { _id: '?' } },
  ];

  it('when several databases saw one unserved shape, then it is named once, with the reason', () => {
    const unserved = findUnservedQueries(entries);
    expect(unserved).to.have.length(1);
    expect(describeUnserved(unserved[0]!)).to.equal('svc keys find {"name":"?"}: no declared index serves equality [name] → sort {} → range []');
  });

  it('when a collection has no declared indexes, then only `_id` serves it', () => {
    expect(findUnservedQueries(entries.slice(4))).to.deep.equal([]);
  });

  it('when the last line of the log is torn, then the rest is still read', () => {
    const text = `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n{"kind":"que`;
    expect(parseCommandLog(text)).to.have.length(entries.length);
  });
});
