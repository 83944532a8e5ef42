import { expect } from 'chai';
import { OutboxRelay, outboxOnCreate, outboxSchemaFields, withOutbox, type OutboxFields } from '@dfc/kit/outbox';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { newEvent, RoutingKeys } from '@dfc/contracts';
import { Broker } from '@dfc/kit/broker';
import { connectMongo } from '@dfc/kit/db';
import { createLogger } from '@dfc/kit/logging';
import { captureEvents, removeBrokerTopology, testDependencies, uniqueName, waitFor, type CapturedEvents } from '@dfc/kit/testing';

interface Thing extends OutboxFields {
  name: string;
  version?: number;
}

const thingSchema = () => new Schema<Thing>({ name: String, version: Number, ...outboxSchemaFields });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('OutboxRelay (real database and broker)', () => {
  const log = createLogger('test', 'silent');
  let connection: Connection;
  let broker: Broker;
  let captured: CapturedEvents;
  let Things: Model<Thing>;
  let exchange: string;

  before(async () => {
    const { mongoUrl, amqpUrl } = await testDependencies();
    exchange = uniqueName('kit_outbox');
    connection = await connectMongo(mongoUrl, uniqueName('kit_outbox'), log);
    Things = connection.model<Thing>('Thing', thingSchema());
    broker = await Broker.connect(amqpUrl, exchange, log);
    captured = await captureEvents(amqpUrl, exchange);
  });

  after(async () => {
    await captured.close();
    await broker.close();
    await removeBrokerTopology((await testDependencies()).amqpUrl, exchange);
    await connection.dropDatabase();
    await connection.close();
  });

  it('when a document is created with events, then notify publishes them in order and empties the outbox', async () => {
    const first = newEvent(RoutingKeys.operatorRegistered, null, { n: 1 });
    const second = newEvent(RoutingKeys.operatorUpdated, null, { n: 2 });
    const thing = await Things.create({ name: 'a', ...outboxOnCreate([first, second]) });
    const relay = new OutboxRelay(broker, log);
    relay.watch(Things as unknown as Model<OutboxFields & { _id: unknown }>);
    await relay.notify(Things as never, thing._id);
    await captured.next((event) => event.id === second.id);
    const ids = captured.events.map((event) => event.id);
    expect(ids.indexOf(first.id)).to.be.lessThan(ids.indexOf(second.id));
    const stored = await Things.findById(thing._id).lean();
    expect(stored?.outbox).to.deep.equal([]);
    expect(stored?.outbox_pending_since).to.equal(undefined);
  });

  it('when the writer says what it wrote and the document changed since, then the entries of both writes are published and the outbox ends empty', async () => {
    const first = newEvent(RoutingKeys.operatorRegistered, null, { n: 1 });
    const second = newEvent(RoutingKeys.operatorUpdated, null, { n: 2 });
    const thing = await Things.create({ name: 'w', version: 0, ...outboxOnCreate([first]) });
    await Things.updateOne({ _id: thing._id }, { ...withOutbox({ $set: { name: 'w2' } }, [second]), $inc: { version: 1 } });
    const relay = new OutboxRelay(broker, log);
    await relay.notify(Things as never, thing._id, { version: 0, outbox: [first] });
    await captured.next((event) => event.id === first.id);
    await captured.next((event) => event.id === second.id);
    const stored = await Things.findById(thing._id).lean();
    expect(stored?.outbox).to.deep.equal([]);
    expect(stored?.outbox_pending_since).to.equal(undefined);
    expect(captured.events.filter((event) => event.id === first.id)).to.have.length(1);
  });

  it('when the writer died before publishing, then the sweep publishes the event later', async () => {
    const orphan = newEvent(RoutingKeys.apiKeyRevoked, null, { key_id: 'k1' });
    const thing = await Things.create({ name: 'b' });
    await Things.updateOne({ _id: thing._id }, withOutbox({ $set: { name: 'b2' } }, [orphan]));
    const relay = new OutboxRelay(broker, log, { sweepIntervalMs: 50, sweepGraceMs: 0 });
    relay.watch(Things as never);
    relay.start();
    try {
      const event = await captured.next((candidate) => candidate.id === orphan.id);
      expect(event.data).to.deep.equal({ key_id: 'k1' });
      await waitFor(async () => (await Things.findById(thing._id).lean())?.outbox.length === 0);
    } finally {
      await relay.stop();
    }
  });

  it('when a sweep found nothing left, then the next looks at the idle pace, so an entry left later waits for it', async () => {
    const relay = new OutboxRelay(broker, log, { sweepIntervalMs: 20, idleSweepIntervalMs: 60_000, sweepGraceMs: 0 });
    relay.watch(Things as never);
    relay.start();
    try {
      await sleep(100);
      const orphan = newEvent(RoutingKeys.apiKeyRevoked, null, { key_id: 'k3' });
      const thing = await Things.create({ name: 'e', ...outboxOnCreate([orphan]) });
      await sleep(300);
      const stored = await Things.findById(thing._id).lean();
      expect(
        stored?.outbox.map((entry) => entry.id),
        'not swept at the quick pace',
      ).to.deep.equal([orphan.id]);
    } finally {
      await relay.stop();
    }
  });

  it('when a publish is deferred to the sweep (the broker refused it), then the sweep takes the quick pace again and publishes it', async () => {
    let refusing = false;
    // The real broker, but for the publishes while `refusing`: a channel that failed for a moment.
    const flaky = Object.create(broker) as Broker;
    flaky.publish = (event) => (refusing ? Promise.reject(new Error('channel closed')) : broker.publish(event));
    const relay = new OutboxRelay(flaky, log, { sweepIntervalMs: 20, idleSweepIntervalMs: 60_000, sweepGraceMs: 0 });
    relay.watch(Things as never);
    relay.start();
    try {
      await sleep(100);
      refusing = true;
      const event = newEvent(RoutingKeys.operatorUpdated, null, { n: 'deferred' });
      const thing = await Things.create({ name: 'f', ...outboxOnCreate([event]) });
      await relay.notify(Things as never, thing._id);
      expect((await Things.findById(thing._id).lean())?.outbox.map((entry) => entry.id)).to.deep.equal([event.id]);
      refusing = false;
      await captured.next((candidate) => candidate.id === event.id, 2_000);
      await waitFor(async () => (await Things.findById(thing._id).lean())?.outbox.length === 0, 2_000);
    } finally {
      await relay.stop();
    }
  });

  it('when the relay is stopped while its sweep is under way, then stop waits for the sweep, which finishes its work first', async () => {
    const orphan = newEvent(RoutingKeys.apiKeyRevoked, null, { key_id: 'k2' });
    const thing = await Things.create({ name: 'd' });
    await Things.updateOne({ _id: thing._id }, withOutbox({ $set: { name: 'd2' } }, [orphan]));
    const relay = new OutboxRelay(broker, log, { sweepIntervalMs: 60_000, sweepGraceMs: 0 });
    relay.watch(Things as never);
    relay.start();
    await relay.stop();
    const stored = await Things.findById(thing._id).lean();
    expect(stored?.outbox).to.deep.equal([]);
    await captured.next((candidate) => candidate.id === orphan.id);
  });

  it('when the broker is unreachable, then publish fails with 503 and the entry stays', async () => {
    const event = newEvent(RoutingKeys.operatorUpdated, null, {});
    const thing = await Things.create({ name: 'c', ...outboxOnCreate([event]) });
    const offline = { isConnected: () => false, publish: () => Promise.reject(new Error('down')) } as unknown as Broker;
    const relay = new OutboxRelay(offline, log);
    relay.watch(Things as never);
    await relay.notify(Things as never, thing._id);
    const stored = await Things.findById(thing._id).lean();
    expect(stored?.outbox.map((entry) => entry.id)).to.deep.equal([event.id]);
  });

  it('when two replicas sweep the same outboxes a broker outage left, then each event is published once', async () => {
    // The second replica: its own connection to the same database, as another pod has.
    const replica = await mongoose.createConnection((await testDependencies()).mongoUrl, { dbName: connection.name }).asPromise();
    const ReplicaThings = replica.model<Thing>('Thing', thingSchema());
    const events = Array.from({ length: 40 }, (_, n) => newEvent(RoutingKeys.operatorUpdated, null, { n, run: 'outage' }));
    const things = await Things.insertMany(events.map((event, n) => ({ name: `outage ${n}`, ...outboxOnCreate([event]) })));
    const relays = [
      new OutboxRelay(broker, log, { sweepIntervalMs: 10, sweepGraceMs: 0 }),
      new OutboxRelay(broker, log, { sweepIntervalMs: 10, sweepGraceMs: 0 }),
    ];
    relays[0]!.watch(Things as never);
    relays[1]!.watch(ReplicaThings as never);
    relays.forEach((relay) => relay.start());
    try {
      const ids = new Set(things.map((thing) => thing._id));
      await waitFor(async () => (await Things.countDocuments({ _id: { $in: [...ids] }, 'outbox.0': { $exists: true } })) === 0, 20_000);
      await captured.next((event) => event.id === events.at(-1)!.id);
      // Anything published twice would have arrived by now.
      await sleep(300);
      const published = new Set(events.map((event) => event.id));
      const counts = new Map<string, number>();
      for (const event of captured.events) if (published.has(event.id)) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
      expect(counts.size, 'every event published').to.equal(events.length);
      expect(
        [...counts.values()].filter((count) => count > 1),
        'events published more than once',
      ).to.deep.equal([]);
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
      await replica.close();
    }
  });
});
