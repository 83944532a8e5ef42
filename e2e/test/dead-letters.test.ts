import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { connect, type ChannelModel } from 'amqplib';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';
import { Broker, REPLAYED_HEADER } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { testDependencies, waitFor } from '@dfc/kit/testing';
import { brokerPolicy, createBrokerUsers, rabbitmqctl, type BrokerUsersRun } from '../src/broker-users.js';
import { localStackRunning } from '../src/stack.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXCHANGE = 'dfc.events';
const DEAD_LETTERS = 'dfc.events.dead-letters';
const QUEUE = 'flight-request-service.operators';
const log = createLogger('dead-letters-test', 'silent');

/**
 * Dead letters in production: a consumer bug makes messages fail until the
 * broker dead-letters them; once fixed, the runbook's command
 * (scripts/replay-dead-letters.ts, as the dead-letter-replay user of
 * k8s/components/data-layer/rabbitmq-users.yaml) puts them back, each
 * delivered once; a dry run moves nothing. And the dead-letter queue's policy
 * (the manifest's definition, with a length small enough to fill) bounds it as
 * docs/operations.md says. Real broker, production names, a vhost of its own.
 */
describe('dead letters: replayed by the runbook’s command, bounded by their policy', function () {
  this.timeout(120_000);
  let users: BrokerUsersRun;
  let admin: ChannelModel;
  let consumer: Broker | undefined;
  let publisher: Broker | undefined;
  let broken = true;
  const received: string[] = [];

  before(async function () {
    if (!(await localStackRunning())) this.skip();
    users = await createBrokerUsers((await testDependencies()).amqpUrl);
    admin = await connect(users.adminUrl);
    // flight-request-service's operator projection, as its own user, with a bug it will be fixed of.
    consumer = await Broker.connect(users.url('dfc-amqp-flight-request-service'), EXCHANGE, log);
    await consumer.subscribe({
      queue: QUEUE,
      bindings: [RoutingKeys.operatorRegistered],
      handler: (event) => {
        if (broken) throw new Error('projection bug');
        received.push(event.id);
        return Promise.resolve();
      },
    });
    publisher = await Broker.connect(users.url('dfc-amqp-operator-service'), EXCHANGE, log);
  });
  after(async () => {
    await consumer?.close();
    await publisher?.close();
    await admin?.close().catch(() => undefined);
    await users?.remove();
  });

  async function depth(queue: string): Promise<number> {
    const channel = await admin.createChannel();
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } finally {
      await channel.close();
    }
  }

  async function replay(...args: string[]): Promise<{ replayed: number; left: number; remaining: number; lines: any[] }> {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/replay-dead-letters.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', AMQP_URL: users.url('dfc-amqp-dead-letter-replay') },
      timeout: 60_000,
    });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    return { ...lines.at(-1), lines: lines.slice(0, -1) };
  }

  const event = (id: string): EventEnvelope =>
    ({ id, type: RoutingKeys.operatorRegistered, occurred_at: new Date().toISOString(), data: { operator_uuid: id } }) as unknown as EventEnvelope;

  it('when a consumer gave up on three events and is fixed, then a dry run moves nothing, and the replay delivers each once, no more than --limit per run', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await publisher!.publish(event(id));
    // Each is redelivered until the queue's delivery limit, then dead-lettered.
    await waitFor(async () => (await depth(DEAD_LETTERS)) === 3, 60_000, 200);
    expect(await depth(QUEUE)).to.equal(0);
    broken = false;

    const dry = await replay('--dry-run');
    expect(dry).to.include({ replayed: 0, left: 3, remaining: 3 });
    expect(dry.lines.map((line) => line.outcome)).to.deep.equal(['would be replayed', 'would be replayed', 'would be replayed']);
    expect(dry.lines[0]).to.include({
      fromQueue: QUEUE,
      exchange: EXCHANGE,
      routingKey: RoutingKeys.operatorRegistered,
      type: RoutingKeys.operatorRegistered,
    });
    await new Promise((done) => setTimeout(done, 300));
    expect(received).to.deep.equal([]);

    const other = await replay('--queue', 'webhook-service.events');
    expect(other).to.include({ replayed: 0, left: 3, remaining: 3 });

    const first = await replay('--limit', '2');
    expect(first).to.include({ replayed: 2, left: 0, remaining: 1 });
    await waitFor(() => received.length === 2, 10_000);

    const rest = await replay();
    expect(rest).to.include({ replayed: 1, remaining: 0 });
    await waitFor(() => received.length === 3, 10_000);
    await new Promise((done) => setTimeout(done, 500));
    expect([...received].sort()).to.deep.equal([...ids].sort());
    expect(await depth(DEAD_LETTERS)).to.equal(0);
  });

  it('a replayed message keeps its body and id, without the death headers, marked replayed', async () => {
    const channel = await admin.createChannel();
    try {
      await channel.deleteQueue(QUEUE);
      await consumer!.close();
      consumer = undefined;
      // The queue again, with no consumer, so the replayed message can be looked at where it lands.
      const holder = await Broker.connect(users.url('dfc-amqp-flight-request-service'), EXCHANGE, log);
      await holder.subscribe({
        queue: QUEUE,
        bindings: [RoutingKeys.operatorRegistered],
        handler: async () => Promise.reject(new Error('reject')),
        prefetch: 1,
      });
      await holder.close();
      const id = randomUUID();
      await publisher!.publish(event(id));
      await waitFor(async () => (await depth(QUEUE)) === 1, 10_000);
      const taken = await channel.get(QUEUE);
      expect(taken).to.not.equal(false);
      if (taken === false) return;
      channel.nack(taken, false, false);
      await waitFor(async () => (await depth(DEAD_LETTERS)) === 1, 10_000);
      expect(await replay()).to.include({ replayed: 1, remaining: 0 });
      await waitFor(async () => (await depth(QUEUE)) === 1, 10_000);
      const back = await channel.get(QUEUE);
      expect(back).to.not.equal(false);
      if (back === false) return;
      channel.ack(back);
      expect(JSON.parse(back.content.toString()).id).to.equal(id);
      expect(back.properties.messageId).to.equal(id);
      expect(back.properties.headers?.['x-death']).to.equal(undefined);
      expect(back.properties.headers?.[REPLAYED_HEADER]).to.equal(1);
    } finally {
      await channel.close();
    }
  });

  it('when the dead-letter queue is full, then each new dead letter pushes out the oldest (the manifest’s policy, max-length made small)', async () => {
    const policy = brokerPolicy('dfc-dead-letters-limit');
    expect(policy.definition).to.include({ overflow: 'drop-head' });
    const definition = { ...policy.definition, 'max-length': 2 };
    await rabbitmqctl(
      'set_policy',
      '-p',
      users.vhost,
      '--apply-to',
      policy.applyTo,
      '--priority',
      String(policy.priority),
      policy.name,
      policy.pattern,
      JSON.stringify(definition),
    );
    // The services' redeclaration of the queue is unaffected by the policy.
    const again = await Broker.connect(users.url('dfc-amqp-gateway'), EXCHANGE, log);
    await again.close();

    const channel = await admin.createChannel();
    try {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of ids) {
        await publisher!.publish(event(id));
        const taken = await waitFor(async () => (await channel.get(QUEUE)) || undefined, 10_000);
        channel.nack(taken, false, false);
        await new Promise((done) => setTimeout(done, 200));
      }
      await new Promise((done) => setTimeout(done, 500));
      expect(await depth(DEAD_LETTERS)).to.equal(2);
      const kept: string[] = [];
      for (;;) {
        const message = await channel.get(DEAD_LETTERS);
        if (message === false) break;
        kept.push(message.properties.messageId as string);
        channel.ack(message);
      }
      expect(kept).to.deep.equal(ids.slice(1));
    } finally {
      await channel.close();
    }
  });
});
