import { expect } from 'chai';
import { OutboxRelay, outboxSchemaFields, type OutboxFields, AggregateStore, type Aggregate } from '@dfc/kit/outbox';
import { newEvent } from '@dfc/contracts';
import { createConnection, Schema, type Connection } from 'mongoose';
import { Broker } from '@dfc/kit/broker';
import { connectMongo, isDuplicateKey, ListCopies } from '@dfc/kit/db';
import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import { createLogger } from '@dfc/kit/logging';
import { captureEvents, removeBrokerTopology, testDependencies, uniqueName, waitFor, type CapturedEvents } from '@dfc/kit/testing';

interface Counter extends Aggregate {
  count: number;
  label: string | null;
}

describe('AggregateStore (real database and broker)', () => {
  const log = createLogger('test', 'silent');
  let connection: Connection;
  let broker: Broker;
  let captured: CapturedEvents;
  let relay: OutboxRelay;
  let counters: AggregateStore<Counter>;
  let exchange: string;
  let schema: Schema<Counter>;

  before(async () => {
    const { mongoUrl, amqpUrl } = await testDependencies();
    exchange = uniqueName('kit_aggregate');
    connection = await connectMongo(mongoUrl, uniqueName('kit_aggregate'), log);
    schema = new Schema<Counter>(
      { _id: String, version: Number, count: Number, label: { type: String, default: null }, ...outboxSchemaFields },
      { versionKey: false },
    );
    const model = connection.model<Counter>('Counter', schema);
    broker = await Broker.connect(amqpUrl, exchange, log);
    captured = await captureEvents(amqpUrl, exchange);
    relay = new OutboxRelay(broker, log);
    counters = new AggregateStore(model, relay, { conflictMessage: 'busy' });
  });

  after(async () => {
    await relay.stop();
    await captured.close();
    await broker.close();
    await removeBrokerTopology((await testDependencies()).amqpUrl, exchange);
    await connection.dropDatabase();
    await connection.close();
  });

  it('when 20 changes race on one document, then every one lands once, in versions 1 to 20, and all their events are published', async () => {
    await counters.insert({ _id: 'race', count: 0, label: null });
    const events = Array.from({ length: 20 }, (_, n) => newEvent('counter.incremented', null, { n }));
    await Promise.all(events.map((event) => counters.change('race', (current) => ({ set: { count: current.count + 1 }, events: [event] }))));
    const stored = await counters.get('race');
    expect(stored.count).to.equal(20);
    expect(stored.version).to.equal(20);
    for (const event of events) await captured.next((candidate) => candidate.id === event.id);
  });

  it('when the decision refuses, then nothing is written and the refusal propagates', async () => {
    await counters.insert({ _id: 'refuse', count: 1, label: null });
    const refusal = counters.change('refuse', () => {
      throw new ConflictError('no');
    });
    await refusal.then(
      () => expect.fail('the change should have been refused'),
      (error: unknown) => expect(error).to.be.instanceOf(ConflictError),
    );
    expect((await counters.get('refuse')).version).to.equal(0);
  });

  it('when the decision changes nothing, then the version stays and the document comes back as it is', async () => {
    await counters.insert({ _id: 'same', count: 3, label: 'x' });
    const unchanged = await counters.change('same', () => null);
    expect(unchanged).to.include({ count: 3, version: 0 });
  });

  it('when a field is unset, then it is gone and the version moves on', async () => {
    await counters.insert({ _id: 'unset', count: 1, label: 'x' });
    const changed = await counters.change('unset', () => ({ unset: ['label'] }));
    expect(changed.version).to.equal(1);
    expect(changed).not.to.have.property('label');
  });

  it('when the document does not exist, then 404', async () => {
    await counters
      .change('missing', () => null)
      .then(
        () => expect.fail('expected NotFoundError'),
        (error: unknown) => expect(error).to.be.instanceOf(NotFoundError),
      );
  });

  it('when the same id is inserted twice, then the second insert is a duplicate key', async () => {
    await counters.insert({ _id: 'twice', count: 0, label: null });
    const second = await counters.insert({ _id: 'twice', count: 0, label: null }).catch((error: unknown) => error);
    expect(isDuplicateKey(second)).to.equal(true);
  });

  it('when the returned document is read, then it carries no outbox', async () => {
    const created = await counters.insert({ _id: 'no-outbox', count: 0, label: null }, [newEvent('counter.created', null, {})]);
    expect(created).not.to.have.property('outbox');
    const changed = await counters.change('no-outbox', () => ({ set: { count: 1 }, events: [newEvent('counter.incremented', null, {})] }));
    expect(changed).not.to.have.property('outbox');
  });

  it('when several documents are inserted at once and one exists already, then the others are stored and only their events are published', async () => {
    await counters.insert({ _id: 'each-existing', count: 9, label: null });
    const fresh = newEvent('counter.created', null, { id: 'each-new' });
    const duplicate = newEvent('counter.created', null, { id: 'each-existing' });
    const inserted = await counters.insertEach([
      { doc: { _id: 'each-new', count: 0, label: null }, events: [fresh] },
      { doc: { _id: 'each-existing', count: 0, label: null }, events: [duplicate] },
    ]);
    expect(inserted.map((doc) => doc._id)).to.deep.equal(['each-new']);
    expect((await counters.get('each-existing')).count).to.equal(9);
    await captured.next((event) => event.id === fresh.id);
    const stored = await waitFor(async () => {
      const doc = await counters.model.findById('each-new').lean<Counter & OutboxFields>();
      return doc?.outbox.length === 0 ? doc : undefined;
    });
    expect(stored.version).to.equal(0);
    expect(captured.events.map((event) => event.id)).not.to.include(duplicate.id);
  });

  it('when one of several documents inserted at once is invalid, then the insert throws instead of reporting it stored', async () => {
    const outcome = await counters
      .insertEach([
        { doc: { _id: 'each-valid', count: 0, label: null }, events: [] },
        { doc: { _id: 'each-invalid', count: 'many' as unknown as number, label: null }, events: [] },
      ])
      .catch((error: unknown) => error);
    expect(outcome).to.be.instanceOf(Error);
    expect(await counters.find('each-invalid')).to.equal(null);
  });

  it('when final transitions of several documents are settled at once, then each lands once and they share write commands', async () => {
    const ids = Array.from({ length: 12 }, (_, n) => `settle-${n}`);
    const copies = await Promise.all(ids.map((id) => counters.insert({ _id: id, count: 0, label: null })));
    // A connection of its own that reports the commands it sends.
    const monitored = await createConnection((await testDependencies()).mongoUrl, { dbName: connection.name, monitorCommands: true }).asPromise();
    const updates: number[] = [];
    monitored.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'update') updates.push((event.command['updates'] as unknown[]).length);
    });
    try {
      const store = new AggregateStore(monitored.model<Counter>('Counter', schema), relay);
      await Promise.all(
        copies.map((copy) => store.settle(copy, (current) => (current.label === null ? { set: { label: 'done', count: current.count + 1 } } : null))),
      );
    } finally {
      await monitored.close();
    }
    for (const id of ids) {
      const stored = await counters.get(id);
      expect([stored.label, stored.count, stored.version]).to.deep.equal(['done', 1, 1]);
    }
    expect(updates.reduce((sum, n) => sum + n, 0)).to.equal(ids.length);
    expect(updates.length).to.be.lessThan(ids.length);
  });

  it('when a copy settled with others is stale, then that one is decided again on its current document and the others land as decided', async () => {
    const fresh = await counters.insert({ _id: 'settle-fresh', count: 0, label: null });
    const stale = await counters.insert({ _id: 'settle-stale', count: 0, label: null });
    await counters.change('settle-stale', () => ({ set: { count: 5 } }));
    const decided: string[] = [];
    const finish = (current: Counter) => {
      decided.push(`${current._id}@${current.version}`);
      return current.label === null ? { set: { label: `final after ${current.count}` } } : null;
    };
    await Promise.all([counters.settle(fresh, finish), counters.settle(stale, finish)]);
    expect((await counters.get('settle-fresh')).label).to.equal('final after 0');
    expect(await counters.get('settle-stale')).to.include({ label: 'final after 5', count: 5, version: 2 });
    expect(decided).to.include('settle-stale@1');
  });

  it('when the store keeps list copies, then every write path (insert, insertEach, change, settle with set and unset, remove) leaves the lists as the documents are', async () => {
    const model = connection.model<Counter>('ListedCounter', schema);
    const listCopies = new ListCopies(model, ['label']);
    const listed = new AggregateStore(model, relay, { listCopies });
    await listCopies.reconcile();
    const labelled = async (label: string) =>
      (
        await listCopies.page<Counter>({
          filter: { label },
          sort: { _id: 1 },
          skip: 0,
          limit: 10,
          projection: {},
          countUpTo: 10,
          maxTimeMS: 5_000,
        })
      ).found.map((found) => found._id);
    const settled = await listed.insert({ _id: 'listed-settled', count: 0, label: 'new' });
    const [, removed] = await listed.insertEach([
      { doc: { _id: 'listed-changed', count: 0, label: 'new' }, events: [] },
      { doc: { _id: 'listed-removed', count: 0, label: 'new' }, events: [] },
    ]);
    const unset = await listed.insert({ _id: 'listed-unset', count: 0, label: 'new' });
    expect(await labelled('new')).to.deep.equal(['listed-changed', 'listed-removed', 'listed-settled', 'listed-unset']);
    await listed.change('listed-changed', () => ({ set: { label: 'changed' } }));
    await listed.settle(settled, () => ({ set: { label: 'settled' } }));
    await listed.settle(unset, () => ({ unset: ['label'] }));
    expect(await listed.remove('listed-removed', removed!.version)).to.equal(true);
    expect(await labelled('new')).to.deep.equal([]);
    expect(await labelled('changed')).to.deep.equal(['listed-changed']);
    expect(await labelled('settled')).to.deep.equal(['listed-settled']);
  });

  it('when the copy a change starts from is stale, then the change is decided again on the current document', async () => {
    const stale = await counters.insert({ _id: 'stale', count: 0, label: null });
    await counters.change('stale', () => ({ set: { count: 5 } }));
    const seen: number[] = [];
    const changed = await counters.change(
      'stale',
      (current) => {
        seen.push(current.count);
        return { set: { count: current.count + 1 } };
      },
      stale,
    );
    expect(seen).to.deep.equal([0, 5]);
    expect(changed).to.include({ count: 6, version: 2 });
  });

  it('when changes with events race on one document, then the relay publishes each event once and empties the outbox', async () => {
    await counters.insert({ _id: 'relay-race', count: 0, label: null });
    const events = Array.from({ length: 5 }, (_, n) => newEvent('counter.incremented', null, { n }));
    await Promise.all(events.map((event) => counters.change('relay-race', (current) => ({ set: { count: current.count + 1 }, events: [event] }))));
    for (const event of events) await captured.next((candidate) => candidate.id === event.id);
    const emptied = await waitFor(async () => {
      const doc = await counters.model.findById('relay-race').lean<Counter & OutboxFields>();
      return doc && doc.outbox.length === 0 && doc.outbox_pending_since === undefined ? doc : undefined;
    });
    expect(emptied.count).to.equal(5);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const event of events)
      expect(
        captured.events.filter((candidate) => candidate.id === event.id),
        event.id,
      ).to.have.length(1);
  });
});
