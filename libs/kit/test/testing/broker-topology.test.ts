import { expect } from 'chai';
import { connect } from 'amqplib';
import { Broker, queueName } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { removeBrokerTopology, testDependencies, uniqueName } from '@dfc/kit/testing';

/** Whether the broker still has a queue or an exchange (a passive declare fails with 404 when not). */
async function exists(amqpUrl: string, kind: 'queue' | 'exchange', name: string): Promise<boolean> {
  const connection = await connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    await (kind === 'queue' ? channel.checkQueue(name) : channel.checkExchange(name));
    return true;
  } catch {
    return false;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

describe('removeBrokerTopology', () => {
  it('when a test declared an exchange with a durable subscription, then afterwards nothing of it is left on the broker', async () => {
    const { amqpUrl } = await testDependencies();
    const exchange = uniqueName('kit_topology');
    const broker = await Broker.connect(amqpUrl, exchange, createLogger('test', 'silent'));
    const queue = queueName(exchange, 'kit.work');
    await broker.subscribe({ queue, bindings: ['#'], handler: () => Promise.resolve() });
    await broker.close();
    const declared = [
      ['queue', queue],
      ['queue', `${exchange}.dead-letters`],
      ['exchange', exchange],
      ['exchange', `${exchange}.dlx`],
    ] as const;
    for (const [kind, name] of declared) expect(await exists(amqpUrl, kind, name), `${kind} ${name} before`).to.equal(true);

    await removeBrokerTopology(amqpUrl, exchange, broker.durableQueues());

    for (const [kind, name] of declared) expect(await exists(amqpUrl, kind, name), `${kind} ${name} after`).to.equal(false);
    await removeBrokerTopology(amqpUrl, exchange, broker.durableQueues());
  });
});
