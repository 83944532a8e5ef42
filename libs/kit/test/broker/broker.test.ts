import { expect } from 'chai';
import { connect, type ChannelModel } from 'amqplib';
import { newEvent, RoutingKeys } from '@dfc/contracts';
import { Broker, delayQueueArguments, queueName } from '@dfc/kit/broker';
import { createLogger, type Logger } from '@dfc/kit/logging';
import { dependencyReadiness } from '@dfc/kit/service';
import { captureEvents, removeBrokerTopology, testDependencies, uniqueName, waitFor } from '@dfc/kit/testing';

/** A logger that keeps the messages of what the broker logs, to tell a reopened channel from a new connection. */
function recordingLogger(): { log: Logger; messages: string[] } {
  const messages: string[] = [];
  const log = createLogger('test', 'silent');
  const record = ((fields: unknown, message?: string) => {
    messages.push(typeof fields === 'string' ? fields : (message ?? ''));
  }) as Logger['info'];
  log.info = record;
  log.warn = record;
  return { log, messages };
}

/** Consumers on a queue as the broker counts them, 0 while the queue does not exist. */
async function consumerCount(admin: ChannelModel, queue: string): Promise<number> {
  const channel = await admin.createChannel();
  channel.on('error', () => undefined);
  try {
    return (await channel.checkQueue(queue)).consumerCount;
  } catch {
    return 0;
  } finally {
    await channel.close().catch(() => undefined);
  }
}

describe('Broker (real broker): a channel the broker closes', () => {
  let amqpUrl: string;
  let exchange: string;
  let broker: Broker;
  let messages: string[];
  let admin: ChannelModel;
  const queues: string[] = [];

  beforeEach(async () => {
    ({ amqpUrl } = await testDependencies());
    exchange = uniqueName('kit_broker');
    const recording = recordingLogger();
    messages = recording.messages;
    broker = await Broker.connect(amqpUrl, exchange, recording.log);
    admin = await connect(amqpUrl);
  });

  afterEach(async () => {
    await broker.close();
    await admin.close().catch(() => undefined);
    await removeBrokerTopology(amqpUrl, exchange, [...broker.durableQueues(), ...queues.splice(0)]);
  });

  const connections = () => messages.filter((message) => message === 'broker connected').length;

  it('when the broker deletes a consumed queue (cancelling its consumer), then the consumer is subscribed again on the same connection and receives what is published next', async () => {
    const queue = queueName(exchange, 'kit.work');
    const received: string[] = [];
    await broker.subscribe({
      queue,
      bindings: [RoutingKeys.operatorRegistered],
      handler: (event) => {
        received.push(event.id);
        return Promise.resolve();
      },
    });
    const before = newEvent(RoutingKeys.operatorRegistered, null, { n: 1 });
    await broker.publish(before);
    await waitFor(() => received.includes(before.id));

    const channel = await admin.createChannel();
    await channel.deleteQueue(queue);
    await channel.close();
    await waitFor(async () => (await consumerCount(admin, queue)) === 1);

    const after = newEvent(RoutingKeys.operatorRegistered, null, { n: 2 });
    await broker.publish(after);
    await waitFor(() => received.includes(after.id));
    expect(messages).to.include('broker cancelled a consumer');
    expect(connections(), 'connections made').to.equal(1);
    expect(broker.channelsOpen()).to.equal(true);
  });

  it('when the broker refuses a delayed publish and closes the publishing channel, then the next publish is confirmed and delivered on the same connection', async () => {
    const captured = await captureEvents(amqpUrl, exchange);
    try {
      const delayQueue = queueName(exchange, 'kit.delay');
      queues.push(delayQueue);
      // Declared without the delay arguments, so the broker refuses the broker's declaration (406) and closes its channel.
      const channel = await admin.createChannel();
      await channel.assertQueue(delayQueue, { durable: true });
      await channel.close();

      const refused = await broker
        .publishDelayed(delayQueue, newEvent(RoutingKeys.operatorUpdated, null, {}), 1000, RoutingKeys.operatorUpdated)
        .then(
          () => undefined,
          (error: Error) => error,
        );
      expect(refused?.message).to.include('PRECONDITION_FAILED');

      const next = newEvent(RoutingKeys.operatorRegistered, null, { n: 3 });
      await broker.publish(next);
      await captured.next((event) => event.id === next.id);
      expect(messages).to.include('broker closed the publishing channel');
      expect(connections(), 'connections made').to.equal(1);
    } finally {
      await captured.close();
    }
  });

  it('GET /readyz (broker_channels): when a consumer the broker cancelled cannot be started again, then not ready until it is, then ready and consuming', async () => {
    const [check] = dependencyReadiness({ broker });
    expect(check?.name).to.equal('broker_channels');
    const ready = async () => check !== undefined && (await check.ready());
    const queue = queueName(exchange, 'kit.work');
    const received: string[] = [];
    await broker.subscribe({
      queue,
      bindings: [RoutingKeys.operatorRegistered],
      handler: (event) => {
        received.push(event.id);
        return Promise.resolve();
      },
    });
    expect(await ready(), 'subscribed').to.equal(true);

    // Without the exchange the consumer's queue is declared again but cannot be bound, so every attempt fails.
    const channel = await admin.createChannel();
    await channel.deleteExchange(exchange);
    await channel.deleteQueue(queue);
    await waitFor(() => messages.includes('broker channel not reopened'));
    expect(await ready(), 'consumer cancelled, not started again').to.equal(false);
    expect(broker.isConnected()).to.equal(true);

    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.close();
    await waitFor(ready, 10_000);
    const after = newEvent(RoutingKeys.operatorRegistered, null, { n: 4 });
    await broker.publish(after);
    await waitFor(() => received.includes(after.id));
    expect(connections(), 'connections made').to.equal(1);
  });

  it('GET /readyz (broker_channels): when the connection is gone, then still ready (a broker outage is not one replica’s fault)', async () => {
    const [check] = dependencyReadiness({ broker });
    await broker.subscribe({ queue: queueName(exchange, 'kit.work'), bindings: ['#'], handler: () => Promise.resolve() });
    await broker.close();
    expect(broker.channelsOpen()).to.equal(false);
    expect(await check?.ready()).to.equal(true);
  });

  it('GET /readyz (broker_consumers): when a handler holds a message past its limit, then not ready (the consumer is attached but dead) until it lets go, then ready', async () => {
    const check = dependencyReadiness({ broker }).find((readiness) => readiness.name === 'broker_consumers');
    const ready = async () => check !== undefined && (await check.ready());
    let letGo = () => {};
    const hanging = new Promise<void>((resolve) => (letGo = resolve));
    const taken: string[] = [];
    await broker.subscribe({
      queue: queueName(exchange, 'kit.work'),
      bindings: [RoutingKeys.operatorRegistered],
      stalledAfterMs: 300,
      handler: (event) => {
        taken.push(event.id);
        return hanging;
      },
    });
    const event = newEvent(RoutingKeys.operatorRegistered, null, { n: 5 });
    await broker.publish(event);
    await waitFor(() => taken.includes(event.id));
    expect(await ready(), 'held for less than the limit').to.equal(true);
    await waitFor(async () => !(await ready()), 5000);
    expect(broker.stalledConsumers()).to.deep.equal([queueName(exchange, 'kit.work')]);
    expect(broker.channelsOpen(), 'the channel itself is open').to.equal(true);
    letGo();
    await waitFor(ready);
  });

  it('when an event is published delayed, then it waits in a quorum queue (a classic queue of that name is refused) and reaches the work queue after the delay', async () => {
    const received: Array<{ id: string; at: number }> = [];
    await broker.subscribe({
      queue: queueName(exchange, 'kit.work'),
      bindings: [RoutingKeys.operatorUpdated],
      handler: (event) => {
        received.push({ id: event.id, at: Date.now() });
        return Promise.resolve();
      },
    });
    const delayQueue = queueName(exchange, 'kit.delay.700ms');
    queues.push(delayQueue);
    const event = newEvent(RoutingKeys.operatorUpdated, null, { n: 6 });
    const sent = Date.now();
    await broker.publishDelayed(delayQueue, event, 700, RoutingKeys.operatorUpdated);

    const channel = await admin.createChannel();
    await channel.assertQueue(delayQueue, { durable: true, arguments: delayQueueArguments(exchange, 700, RoutingKeys.operatorUpdated) });
    await channel.close();
    const classic = await admin.createChannel();
    classic.on('error', () => undefined);
    const refused = await classic
      .assertQueue(delayQueue, {
        durable: true,
        arguments: { ...delayQueueArguments(exchange, 700, RoutingKeys.operatorUpdated), 'x-queue-type': 'classic' },
      })
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(refused?.message).to.include('PRECONDITION_FAILED');

    const arrival = await waitFor(() => received.find((entry) => entry.id === event.id), 10_000);
    expect(arrival.at - sent, 'not before its delay').to.be.at.least(650);
  });
});
