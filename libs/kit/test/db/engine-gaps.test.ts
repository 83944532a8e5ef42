import { expect } from 'chai';
import mongoose, { Schema, type Connection, type Model, type mongo } from 'mongoose';
import { createIndexesOn, expireCollectionAsTtlWould, findUpTo, findWhereIn, ListCopies, withHour } from '@dfc/kit/db';
import { testDependencies, uniqueName } from '@dfc/kit/testing';

interface Thing {
  _id: string;
  owner: string;
  note: string;
}

describe('findWhereIn (real database)', () => {
  let connection: Connection;
  let things: Model<Thing>;
  const sent: Array<Record<string, unknown>> = [];

  before(async () => {
    const { mongoUrl } = await testDependencies();
    connection = await mongoose.createConnection(mongoUrl, { dbName: uniqueName('kit_where_in'), monitorCommands: true }).asPromise();
    connection.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
      if (event.commandName === 'find') sent.push(event.command['filter'] as Record<string, unknown>);
    });
    things = connection.model<Thing>('Thing', new Schema<Thing>({ _id: String, owner: String, note: String }, { versionKey: false }));
    await things.insertMany([
      { _id: 't1', owner: 'ann', note: 'a' },
      { _id: 't2', owner: 'ann', note: 'b' },
      { _id: 't3', owner: 'bob', note: 'c' },
      { _id: 't4', owner: 'cy', note: 'd' },
    ]);
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  beforeEach(() => {
    sent.length = 0;
  });

  it('when values repeat or match nothing, then every matching document comes back once, with the projection applied', async () => {
    const found = await findWhereIn<Thing, Pick<Thing, '_id' | 'owner'>>(things, 'owner', ['ann', 'bob', 'ann', 'nobody'], { note: 0 });
    expect(found.sort((a, b) => a._id.localeCompare(b._id))).to.deep.equal([
      { _id: 't1', owner: 'ann' },
      { _id: 't2', owner: 'ann' },
      { _id: 't3', owner: 'bob' },
    ]);
  });

  it('when no value is given, then nothing is asked of the database', async () => {
    expect(await findWhereIn(things, '_id', [])).to.deep.equal([]);
    expect(sent).to.deep.equal([]);
  });

  it('then the engine gets what its indexes serve: one $in on MongoDB, one equality per value on FerretDB', async () => {
    const info = await connection.db!.admin().command({ buildInfo: 1 });
    await findWhereIn(things, '_id', ['t1', 't3', 't1']);
    if ('ferretdbVersion' in info) {
      expect(sent).to.have.deep.members([{ _id: 't1' }, { _id: 't3' }]);
    } else {
      expect(sent).to.deep.equal([{ _id: { $in: ['t1', 't3'] } }]);
    }
  });
});

describe("createIndexesOn, expireCollectionAsTtlWould (a library's collection, real database)", () => {
  let connection: Connection;
  let db: mongo.Db;

  before(async () => {
    const { mongoUrl } = await testDependencies();
    connection = await mongoose.createConnection(mongoUrl, { dbName: uniqueName('kit_library_indexes') }).asPromise();
    db = connection.db!;
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('when a TTL index and a unique one are declared, then both keys are built and the unique one refuses a second document of a key', async () => {
    await createIndexesOn(db, 'counters', [
      [{ expire: -1 }, { expireAfterSeconds: 0 }],
      [{ key: 1 }, { unique: true }],
    ]);
    const keys = (await db.collection('counters').listIndexes().toArray()).map((index) => JSON.stringify(index['key']));
    expect(keys).to.include.members(['{"expire":-1}', '{"key":1}']);
    await db.collection('counters').insertOne({ key: 'k', expire: new Date() });
    let refused: unknown;
    await db
      .collection('counters')
      .insertOne({ key: 'k', expire: new Date() })
      .catch((error: unknown) => (refused = error));
    expect(refused, 'a second document of one key').to.be.instanceOf(Error);
  });

  it('when documents are past their expiry, then they are gone after the sweep (by the sweep where the engine has no TTL monitor) and the others stay', async () => {
    const now = new Date();
    await db.collection('expiring').insertMany([
      { key: 'past', expire: new Date(now.getTime() - 1_000) },
      { key: 'future', expire: new Date(now.getTime() + 60_000) },
    ]);
    const deleted = await expireCollectionAsTtlWould(db, 'expiring', { field: 'expire', seconds: 0 }, now);
    const isFerret = 'ferretdbVersion' in (await db.admin().command({ buildInfo: 1 }));
    expect(deleted).to.equal(isFerret ? 1 : 0);
    if (isFerret) expect((await db.collection('expiring').find().toArray()).map((doc) => doc['key'])).to.deep.equal(['future']);
  });
});

interface Due {
  _id: string;
  kind: string;
  due_at: Date;
  due_at_hour?: number;
}

describe('findUpTo, what a sweep has to do by now (real database)', () => {
  let connection: Connection;
  let dues: Model<Due>;
  let local: boolean;
  const sent: Array<Record<string, unknown>> = [];
  const now = new Date();
  const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
  const due = (id: string, kind: string, at: Date): Due => ({ _id: id, kind, ...withHour('due_at', at) });

  before(async () => {
    const { mongoUrl } = await testDependencies();
    connection = await mongoose.createConnection(mongoUrl, { dbName: uniqueName('kit_up_to'), monitorCommands: true }).asPromise();
    connection.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
      if (event.commandName === 'find') sent.push(event.command['filter'] as Record<string, unknown>);
    });
    dues = connection.model<Due>('Due', new Schema<Due>({ _id: String, kind: String, due_at: Date, due_at_hour: Number }, { versionKey: false }));
    local = 'ferretdbVersion' in (await connection.db!.admin().command({ buildInfo: 1 }));
    await dues.insertMany([
      due('late', 'sweep', ago(90)),
      due('later', 'sweep', ago(10)),
      due('latest', 'sweep', ago(1)),
      due('future', 'sweep', new Date(now.getTime() + 120 * 60_000)),
      due('other', 'else', ago(30)),
      // Written before its hour was stored, and due long ago.
      { _id: 'unhoured', kind: 'sweep', due_at: ago(20 * 60) },
    ]);
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('when it is asked first, then every document due by the cutoff comes back oldest first, up to the limit, those of other equalities and the future left out', async () => {
    const found = await findUpTo<Pick<Due, '_id'>>(dues, { kind: 'sweep' }, 'due_at', now, 3, { _id: 1 });
    expect(found.map((doc) => doc._id)).to.deep.equal(['unhoured', 'late', 'later']);
  });

  it('when asked again, then the documents due in the last hours come back in order, by one equality on each hour where the engine filters ranges itself', async () => {
    sent.length = 0;
    await dues.insertMany([due('fresh', 'sweep', ago(5)), { _id: 'old-unhoured', kind: 'sweep', due_at: ago(30 * 60) }]);
    const found = await findUpTo<Pick<Due, '_id'>>(dues, { kind: 'sweep' }, 'due_at', now, 10, { _id: 1 });
    const ids = found.map((doc) => doc._id);
    if (local) {
      // The old one without its hour waits for the hourly read of the whole range.
      expect(ids).to.deep.equal(['late', 'later', 'fresh', 'latest']);
      expect(sent).to.have.length(7);
      expect(sent.every((filter) => filter['kind'] === 'sweep' && typeof filter['due_at_hour'] === 'number')).to.equal(true);
    } else {
      expect(ids).to.deep.equal(['old-unhoured', 'unhoured', 'late', 'later', 'fresh', 'latest']);
      expect(sent).to.have.length(1);
    }
  });
});

interface Listed {
  _id: string;
  version: number;
  owner: string;
  state: string;
  at: Date;
  body: string;
}

describe('ListCopies, what a list reads on the local engine (real database)', () => {
  let connection: Connection;
  let listed: Model<Listed>;
  let copies: ListCopies<Listed>;
  let local: boolean;
  const readFrom: string[] = [];
  const at = (minute: number) => new Date(Date.UTC(2026, 11, 3, 12, minute));
  const doc = (id: string, minute: number, state = 'open', version = 0): Listed => ({
    _id: id,
    version,
    owner: 'ann',
    state,
    at: at(minute),
    body: `body of ${id}`,
  });
  const page = (state: string, skip = 0, limit = 10) =>
    copies.page<Listed>({
      filter: { owner: 'ann', state },
      sort: { at: -1, _id: -1 },
      skip,
      limit,
      projection: { body: 0 },
      countUpTo: 100,
      maxTimeMS: 5_000,
    });
  const ids = (found: Listed[]) => found.map((entry) => entry._id);

  before(async () => {
    const { mongoUrl } = await testDependencies();
    connection = await mongoose.createConnection(mongoUrl, { dbName: uniqueName('kit_list_copies'), monitorCommands: true }).asPromise();
    connection.getClient().on('commandStarted', (event: mongo.CommandStartedEvent) => {
      if (event.commandName === 'find') readFrom.push(String(event.command['find']));
    });
    const schema = new Schema<Listed>({ _id: String, version: Number, owner: String, state: String, at: Date, body: String }, { versionKey: false });
    schema.index({ owner: 1, at: -1, _id: -1 });
    listed = connection.model<Listed>('Listed', schema);
    copies = new ListCopies(listed, ['owner', 'state', 'at']);
    local = 'ferretdbVersion' in (await connection.db!.admin().command({ buildInfo: 1 }));
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  beforeEach(() => {
    readFrom.length = 0;
  });

  it('when the copies were never reconciled, then a page reads the documents themselves, whole as projected and counted', async () => {
    await listed.insertMany([doc('a', 1), doc('b', 2), doc('c', 3, 'closed')]);
    const { found, total } = await page('open');
    expect(ids(found)).to.deep.equal(['b', 'a']);
    expect(total).to.equal(2);
    expect(found[0]).to.include({ owner: 'ann', state: 'open' }).and.not.have.property('body');
    expect(readFrom).to.deep.equal(local ? ['engine_list_copies_complete', 'listeds'] : ['listeds']);
  });

  it('when reconciled, then every document has its copy, and a page finds ids and count among the copies (on the local engine), then reads the page by id', async () => {
    expect(await copies.reconcile()).to.equal(local ? 3 : 0);
    readFrom.length = 0;
    const { found, total } = await page('open', 1, 1);
    expect(ids(found)).to.deep.equal(['a']);
    expect(total).to.equal(2);
    expect(found[0]).to.include({ version: 0, state: 'open' }).and.not.have.property('body');
    expect(readFrom).to.deep.equal(local ? ['engine_list_copies_listeds', 'listeds'] : ['listeds']);
  });

  it('when each write is followed by its copy, then the page follows the writes: a new document, a changed state, a removed one', async () => {
    await listed.create(doc('d', 4));
    await copies.written(doc('d', 4));
    await listed.updateOne({ _id: 'a' }, { $set: { state: 'closed', version: 1 } });
    await copies.written(doc('a', 1, 'closed', 1));
    await listed.deleteOne({ _id: 'b' });
    await copies.removed(['b']);
    expect(ids((await page('open')).found)).to.deep.equal(['d']);
    expect(ids((await page('closed')).found)).to.deep.equal(['c', 'a']);
  });

  it('when an older write copies after a newer one, then the newer copy stays', async () => {
    await listed.updateOne({ _id: 'd' }, { $set: { state: 'closed', version: 2 } });
    await copies.written(doc('d', 4, 'closed', 2));
    await copies.written(doc('d', 4, 'open', 1));
    expect(ids((await page('closed')).found)).to.deep.equal(['d', 'c', 'a']);
    expect((await page('open')).total).to.equal(0);
  });

  it('when a process died between a write and its copy, then the next reconcile brings the copies in line with the documents', async () => {
    await listed.updateOne({ _id: 'c' }, { $set: { state: 'open', version: 1 } });
    await listed.create(doc('e', 5));
    await listed.deleteOne({ _id: 'd' });
    if (local) expect(ids((await page('open')).found), 'before the reconcile, the copies hold what was last copied').to.deep.equal([]);
    expect(await copies.reconcile()).to.equal(local ? 3 : 0);
    expect(ids((await page('open')).found)).to.deep.equal(['e', 'c']);
    expect(ids((await page('closed')).found)).to.deep.equal(['a']);
  });

  it('when thousands of documents were written straight into the database and some changed since, then one reconcile copies them all, a batch at a time', async () => {
    const filled = Array.from({ length: 2_500 }, (_, n) => doc(`filled-${String(n).padStart(4, '0')}`, 10 + (n % 40), 'filled'));
    await listed.insertMany(filled);
    const changed = filled.slice(0, 1_200).map((entry) => entry._id);
    await listed.updateMany({ _id: { $in: changed } }, { $set: { state: 'refiled', version: 1 } });
    expect(await copies.reconcile()).to.equal(local ? 2_500 : 0);
    expect(ids((await page('refiled', 1_199)).found), 'the 1,200th refiled is copied').to.have.length(1);
    await listed.updateMany({ _id: { $in: changed } }, { $set: { state: 'filled', version: 2 } });
    expect(await copies.reconcile(), 'more behind than one batch').to.equal(local ? 1_200 : 0);
    expect(await copies.reconcile(), 'a second reconcile finds nothing to do').to.equal(0);
    expect((await page('refiled')).total).to.equal(0);
    expect(ids((await page('filled', 2_499)).found), 'the 2,500th and last in the order is there').to.deep.equal(['filled-0000']);
  });
});
