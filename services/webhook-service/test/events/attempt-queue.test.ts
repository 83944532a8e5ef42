import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { connect as amqpConnect } from 'amqplib';
import { Broker, delayQueueArguments, queueName } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { testDependencies, waitFor, unrecorded } from '@dfc/kit/testing';
import type { EventEnvelope } from '@dfc/contracts';
import { attemptDue, carriedMessages, type AttemptDue } from '../../src/domain/attempt-message.js';
import { EVENT_WINDOW } from '../../src/events/event-consumer.js';
import { delayQueueName } from '../../src/messaging.js';
import { attemptDelivery } from '../../src/use-cases/attempt-delivery.js';
import {
  api,
  cleanUp,
  freshNames,
  operator,
  Receivers,
  registerEndpoint,
  sleep,
  startService,
  statusChanged,
  TEST_ENV,
  testServiceEnv,
  type Names,
  type TestService,
} from '../support.js';

/** How many attempt messages each work-queue message the service publishes from now on carries. */
function attemptsPerBrokerMessage(service: TestService): number[] {
  const carried: number[] = [];
  const publish = service.broker.publish.bind(service.broker);
  service.broker.publish = async (message) => {
    if (message.type.startsWith('webhook.attempt')) carried.push(carriedMessages(message)?.length ?? 0);
    return publish(message);
  };
  return carried;
}

/** The attempt pipeline on the real broker: work queue, delay queues, competing replicas, crashes. */
describe('delivery attempts through the broker', () => {
  const opened: TestService[] = [];
  const receivers = new Receivers();
  const used: Names[] = [];
  const start = async (names: Names, env: Record<string, string> = {}) => {
    const service = await startService(names, env);
    opened.push(service);
    return service;
  };
  const stop = async (service: TestService) => {
    opened.splice(opened.indexOf(service), 1);
    await service.close();
  };
  const receiver = () => receivers.start();
  const names = () => {
    const fresh = freshNames();
    used.push(fresh);
    return fresh;
  };

  after(async () => {
    await Promise.all(opened.map((service) => service.close()));
    await receivers.closeAll();
    for (const fresh of used) await cleanUp(fresh);
  });

  it('when two service instances consume one broker and database, then every event arrives exactly once (counted by webhook-id)', async () => {
    const shared = names();
    const [one, two] = [await start(shared), await start(shared)];
    const alice = operator();
    const hook = await receiver();
    await registerEndpoint(one.url, alice, `${hook.url}/a`);
    await registerEndpoint(two.url, alice, `${hook.url}/b`);
    const events = Array.from({ length: 30 }, () => statusChanged(alice.operator_uuid!));
    await Promise.all(events.map((event, index) => (index % 2 ? one : two).broker.publish(event)));
    await waitFor(() => hook.requests.length >= 60, 20_000);
    await sleep(500);
    const seen = new Map<string, number>();
    for (const request of hook.requests) {
      const key = `${request.path} ${String(request.headers['webhook-id'])}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(seen.size).to.equal(60);
    expect([...seen.values()].every((count) => count === 1)).to.equal(true);
  });

  it('when two webhook-service processes deliver to one slow receiver with a limit of 2, then never more than 2 requests are under way at once between them, and every event arrives once', async function () {
    this.timeout(90_000);
    const fresh = names();
    const registrar = await start(fresh);
    const alice = operator();
    const hook = await receiver();
    let inFlight = 0;
    let mostInFlight = 0;
    hook.answer = () => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      return { status: 200, hold: sleep(200).then(() => void (inFlight -= 1)) };
    };
    await registerEndpoint(registrar.url, alice, hook.url);
    await stop(registrar);

    const env = { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '2' };
    const children = [await spawnService(fresh, env), await spawnService(fresh, env)];
    try {
      const { amqpUrl } = await testDependencies();
      const broker = await Broker.connect(amqpUrl, fresh.exchange, createLogger('webhook-service-test', 'silent'));
      const events = Array.from({ length: 12 }, () => statusChanged(alice.operator_uuid!));
      // One at a time, so their attempts travel in messages of their own, which the two processes share.
      for (const event of events) {
        await broker.publish(event);
        await sleep(30);
      }
      await broker.close();
      await waitFor(() => hook.requests.length >= events.length, 60_000);
      await sleep(500);
      expect(mostInFlight, 'requests under way at once, both processes together').to.equal(2);
      expect(hook.requests.map((request) => request.headers['webhook-id']).sort()).to.deep.equal(events.map((event) => event.id).sort());
    } finally {
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)))));
    }
  });

  it('GET /metrics (webhook_attempts_waiting): when five attempts wait behind a held request, then every replica reports five, though the broker holds no ready message, and 0 once they are made', async () => {
    const shared = names();
    const [one, two] = [
      await start(shared, { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1' }),
      await start(shared, { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1' }),
    ];
    const alice = operator();
    const hook = await receiver();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    hook.answer = () => ({ status: 200, hold: held });
    await registerEndpoint(one.url, alice, hook.url);
    const waiting = async (service: TestService) =>
      Number(/webhook_attempts_waiting\{service="webhook-service"\} (\d+)/.exec(await (await fetch(`${service.url}/metrics`)).text())?.[1]);
    await Promise.all(Array.from({ length: 5 }, () => one.broker.publish(statusChanged(alice.operator_uuid!))));
    await waitFor(() => hook.requests.length === 1);
    await waitFor(async () => (await waiting(one)) === 5);
    expect(await waiting(two), 'the other replica reads the same log').to.equal(5);
    const { amqpUrl } = await testDependencies();
    const amqp = await amqpConnect(amqpUrl);
    const probe = await amqp.createChannel();
    expect((await probe.checkQueue(queueName(shared.exchange, 'webhook-service.attempts'))).messageCount, 'ready on the broker').to.equal(0);
    await amqp.close();
    release();
    await waitFor(() => hook.requests.length === 5, 20_000);
    await waitFor(async () => (await waiting(two)) === 0, 10_000);
  });

  it("when an endpoint's limit is one request at a time, then requests never overlap, and the next starts as soon as an answer is in, not once it is recorded", async () => {
    const fresh = names();
    const service = await start(fresh, { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1' });
    const alice = operator();
    const hook = await receiver();
    hook.answer = () => ({ status: 200, delayMs: 100 });
    await registerEndpoint(service.url, alice, hook.url);
    // Recording an attempt takes 400 ms here: a slot held until then would space the requests that far apart.
    const { deliveries } = service.service.deps;
    const append = deliveries.appendAttempt.bind(deliveries);
    deliveries.appendAttempt = async (...args) => {
      await sleep(400);
      return append(...args);
    };
    await Promise.all(Array.from({ length: 3 }, () => service.broker.publish(statusChanged(alice.operator_uuid!))));
    await waitFor(() => hook.requests.length === 3, 10_000);
    const gaps = hook.requests.slice(1).map((request, index) => request.at - hook.requests[index]!.at);
    expect(Math.min(...gaps), 'one at a time: each after the previous answer (100 ms)').to.be.at.least(90);
    expect(Math.max(...gaps), 'not held while the answer is recorded (400 ms)').to.be.below(390);
  });

  it("when one broker message carries more attempts than the replica's window, then no more than the window are under way at once, and every one arrives", async () => {
    const service = await start(names(), { WEBHOOK_MAX_IN_FLIGHT: '2' });
    const alice = operator();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const hooks = await Promise.all(Array.from({ length: 4 }, () => receiver()));
    for (const hook of hooks) {
      hook.answer = () => ({ status: 200, hold: held });
      await registerEndpoint(service.url, alice, hook.url);
    }
    const carried = attemptsPerBrokerMessage(service);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const underWay = () => hooks.reduce((sum, hook) => sum + hook.requests.length, 0);
    await waitFor(() => underWay() >= 2);
    await sleep(300);
    expect(carried, "the event's four first messages, in one broker message").to.deep.equal([4]);
    expect(underWay(), 'the window of two attempts').to.equal(2);
    release();
    await waitFor(() => hooks.every((hook) => hook.requests.length === 1), 10_000);
    await sleep(200);
    expect(hooks.map((hook) => hook.requests.length)).to.deep.equal([1, 1, 1, 1]);
  });

  it('when ten events of an operator with two endpoints are fanned out at the same moment, then their first messages share broker messages, and each delivery arrives once', async () => {
    const service = await start(names());
    const alice = operator();
    const hooks = [await receiver(), await receiver()];
    for (const hook of hooks) await registerEndpoint(service.url, alice, hook.url);
    const carried = attemptsPerBrokerMessage(service);
    const events = Array.from({ length: 10 }, () => statusChanged(alice.operator_uuid!));
    await Promise.all(events.map((event) => service.broker.publish(event)));
    await waitFor(() => hooks.every((hook) => hook.requests.length === 10), 10_000);
    await sleep(300);
    for (const hook of hooks) expect(new Set(hook.requests.map((request) => request.headers['webhook-id'])).size, 'each event once').to.equal(10);
    expect(hooks.map((hook) => hook.requests.length)).to.deep.equal([10, 10]);
    expect(
      carried.reduce((sum, count) => sum + count, 0),
      'every first message published',
    ).to.equal(20);
    expect(carried.length, `broker messages carrying them: ${carried.join(', ')}`).to.be.below(10);
  });

  it('when a whole event window of first messages is handed over while a work-queue message is being published, then the next broker message carries them all', async () => {
    const service = await start(names());
    const alice = operator();
    const carried = attemptsPerBrokerMessage(service);
    const firstMessages = Array.from({ length: 1 + EVENT_WINDOW }, () => [
      attemptDue({ _id: randomUUID(), endpoint_id: randomUUID(), operator_uuid: alice.operator_uuid!, dispatch_token: randomUUID() }),
    ]);
    await Promise.all(firstMessages.map((messages) => service.service.deps.scheduler.now(messages)));
    expect(carried, 'the first one alone, then the window together').to.deep.equal([1, EVENT_WINDOW]);
  });

  it("when an endpoint's slot and waiting place are taken, then a message naming only its delivery waits on the broker, longer each time in a row it finds the endpoint busy, and nothing is read for it", async () => {
    const fresh = names();
    // One request at a time and one message waiting for it (half a window of two).
    const service = await start(fresh, { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1', WEBHOOK_MAX_IN_FLIGHT: '2' });
    const alice = operator();
    const endpoint = await registerEndpoint(service.url, alice, (await receiver()).url);
    const { deps } = service.service;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const occupying = [deps.slots.run(endpoint.id, () => gate), deps.slots.run(endpoint.id, () => gate)];
    let reads = 0;
    const find = deps.deliveries.find.bind(deps.deliveries);
    deps.deliveries.find = (id) => {
      reads += 1;
      return find(id);
    };
    const parked: Array<{ delayMs: number; busyWaits: number | undefined }> = [];
    const parking = {
      ...deps,
      scheduler: {
        ...deps.scheduler,
        later: (parkedMessage: EventEnvelope<AttemptDue>, delayMs: number) => {
          parked.push({ delayMs, busyWaits: parkedMessage.data.busy_waits });
          return Promise.resolve();
        },
      },
    };
    const message = attemptDue({ _id: randomUUID(), endpoint_id: endpoint.id, operator_uuid: alice.operator_uuid!, dispatch_token: randomUUID() });
    await attemptDelivery(parking, message);
    await attemptDelivery(parking, { ...message, data: { ...message.data, busy_waits: 3 } });
    await attemptDelivery(parking, { ...message, data: { ...message.data, busy_waits: 12 } });
    expect(parked, 'half a second, then doubling, up to 32 s').to.deep.equal([
      { delayMs: 500, busyWaits: 1 },
      { delayMs: 4000, busyWaits: 4 },
      { delayMs: 32_000, busyWaits: 13 },
    ]);
    expect(reads).to.equal(0);
    release();
    await Promise.all(occupying);
  });

  // The shared broker is not restarted here: this proves what a restart keeps (durable queues, persistent messages)
  // and that the retry survives every consumer and connection of the service being closed and recreated.
  it('when a retry is scheduled, then it waits as a persistent message in a durable quorum delay queue whose TTL is the delay, survives the consumers and connection being replaced, and arrives', async () => {
    const fresh = names();
    const env = { WEBHOOK_RETRY_SCHEDULE_MS: '4000' };
    const first = await start(fresh, env);
    const alice = operator();
    const hook = await receiver();
    hook.answer = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    await registerEndpoint(first.url, alice, hook.url);
    const event = statusChanged(alice.operator_uuid!);
    await first.broker.publish(event);
    await waitFor(() => hook.requests.length === 1);

    // Jitter picks one of 21 delays around 4 s; the message sits in the queue of its delay.
    const { amqpUrl } = await testDependencies();
    const amqp = await amqpConnect(amqpUrl);
    const candidates = Array.from({ length: 21 }, (_, step) => Math.round(4000 * (0.8 + (0.4 * step) / 20)));
    const holding = async (delay: number) => {
      const probe = await amqp.createChannel();
      probe.on('error', () => undefined);
      const count = await probe.checkQueue(queueName(fresh.exchange, delayQueueName(delay))).then(
        (state) => state.messageCount,
        () => 0,
      );
      await probe.close().catch(() => undefined);
      return count === 1;
    };
    const found = await waitFor(async () => {
      for (const delay of candidates) if (await holding(delay)) return { delay, queue: queueName(fresh.exchange, delayQueueName(delay)) };
      return undefined;
    });
    await stop(first);
    const channel = await amqp.createChannel();
    // Persistent (delivery mode 2): a broker restart keeps it. Looked at and put back.
    const message = await channel.get(found.queue);
    expect(message && message.properties.deliveryMode).to.equal(2);
    if (message) channel.nack(message, false, true);
    // Re-declaring with durable: true and the same arguments succeeds only on a durable quorum queue of exactly that TTL.
    await channel.assertQueue(found.queue, { durable: true, arguments: delayQueueArguments(fresh.exchange, found.delay, 'webhook.attempt_due') });
    await amqp.close();

    hook.answer = () => ({ status: 200 });
    const second = await start(fresh, env);
    await waitFor(() => hook.requests.length === 2, 10_000);
    expect(hook.requests[1]!.headers['webhook-id']).to.equal(event.id);
    await stop(second);
  });

  it('when an endpoint fails repeatedly, then it cools off (no request meanwhile, the gauge shows it) and recovers on the first success', async () => {
    const fresh = names();
    const service = await start(fresh, {
      WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50,50',
      WEBHOOK_COOL_OFF_AFTER_FAILURES: '2',
      WEBHOOK_COOL_OFF_MS: '1500',
    });
    const alice = operator();
    const hook = await receiver();
    hook.answer = (_request, index) => ({ status: index < 2 ? 500 : 200 });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    await waitFor(() => hook.requests.length === 2);
    await waitFor(async () =>
      /webhook_endpoints_cooling_off\{service="webhook-service"\} 1/.test(await (await fetch(`${service.url}/metrics`)).text()),
    );
    expect(hook.requests).to.have.length(2);
    await waitFor(() => hook.requests.length === 3, 5000);
    const gap = hook.requests[2]!.at - hook.requests[1]!.at;
    expect(gap).to.be.at.least(1400);
    const stored = await waitFor(async () => {
      const doc = await service.connection.db!.collection('webhook_endpoints').findOne({ _id: endpoint.id as never });
      return doc && doc['consecutive_failures'] === 0 ? doc : undefined;
    });
    expect(stored['cooling_until']).to.equal(null);
    expect(stored['enabled']).to.equal(true);
  });

  it("when a delivery's message is lost (its delay queue deleted), then the sweep of the log puts it back and it arrives", async () => {
    const fresh = names();
    const service = await start(fresh, { WEBHOOK_RETRY_SCHEDULE_MS: '30000', WEBHOOK_LOST_AFTER_MS: '300' });
    const alice = operator();
    const hook = await receiver();
    hook.answer = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    await waitFor(() => hook.requests.length === 1);
    const { amqpUrl } = await testDependencies();
    const amqp = await amqpConnect(amqpUrl);
    for (let step = 0; step <= 20; step++) {
      const channel = await amqp.createChannel();
      await channel.deleteQueue(queueName(fresh.exchange, delayQueueName(Math.round(30_000 * (0.8 + (0.4 * step) / 20))))).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
    await amqp.close();
    // Due in ~30 s: make it overdue in the log, as it would be after a broker wipe.
    await unrecorded(() =>
      service.connection.db!.collection('webhook_deliveries').updateMany({}, { $set: { next_attempt_at: new Date(Date.now() - 1000) } }),
    );
    await waitFor(() => hook.requests.length === 2, 5000);
  });

  it('when a webhook-service process is killed (SIGKILL) while a receiver holds its request, then after a restart the delivery arrives', async function () {
    this.timeout(60_000);
    const fresh = names();
    const registrar = await start(fresh);
    const alice = operator();
    const hook = await receiver();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    hook.answer = (_request, index) => (index === 0 ? { status: 200, hold: held } : { status: 200 });
    const endpoint = await registerEndpoint(registrar.url, alice, hook.url);
    await stop(registrar);

    const child = await spawnService(fresh);
    const { amqpUrl } = await testDependencies();
    const broker = await Broker.connect(amqpUrl, fresh.exchange, createLogger('webhook-service-test', 'silent'));
    const event = statusChanged(alice.operator_uuid!);
    await broker.publish(event);
    await broker.close();
    await waitFor(() => hook.requests.length === 1, 15_000);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    release();

    const restarted = await start(fresh);
    await waitFor(() => hook.requests.length === 2, 15_000);
    expect(hook.requests[1]!.headers['webhook-id']).to.equal(event.id);
    const log = await waitFor(async () => {
      const page = (await api(restarted.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).body;
      return page.data[0]?.status === 'succeeded' ? page.data[0] : undefined;
    });
    expect(log.event_id).to.equal(event.id);
  });

  it('when a webhook-service process gets SIGTERM while a receiver takes 3 s to answer, then the delivery is sent exactly once, recorded succeeded, and a process started later does not send it again', async function () {
    this.timeout(60_000);
    const fresh = names();
    const registrar = await start(fresh);
    const alice = operator();
    const hook = await receiver();
    hook.answer = () => ({ status: 200, delayMs: 3_000 });
    const endpoint = await registerEndpoint(registrar.url, alice, hook.url);
    await stop(registrar);

    // SHUTDOWN_GRACE_MS is left to its default, which must outlast an attempt's timeout.
    const child = await spawnService(fresh, { WEBHOOK_TIMEOUT_MS: '5000' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const event = statusChanged(alice.operator_uuid!);
    const { amqpUrl } = await testDependencies();
    const broker = await Broker.connect(amqpUrl, fresh.exchange, createLogger('webhook-service-test', 'silent'));
    await broker.publish(event);
    await broker.close();
    await waitFor(() => hook.requests.length === 1, 15_000, 20);
    await sleep(1_000);
    child.kill('SIGTERM');
    expect(await exited, 'a clean exit within the grace period').to.equal(0);
    expect(Date.now() - hook.requests[0]!.at, 'it waited for the answer').to.be.at.least(2_900);

    // Any pending delivery would be swept up at once: nothing is.
    const later = await start(fresh, { WEBHOOK_LOST_AFTER_MS: '1' });
    await sleep(3_000);
    expect(hook.requests.map((request) => request.headers['webhook-id'])).to.deep.equal([event.id]);
    const page = (await api(later.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).body;
    expect(page.data).to.have.length(1);
    expect(page.data[0]).to.include({ event_id: event.id, status: 'succeeded' });
    expect(page.data[0].attempts.map((attempt: { status_code: number }) => attempt.status_code)).to.deep.equal([200]);
  });
});

/** webhook-service as its own process (src/main.ts), on the test's database and exchange. */
async function spawnService(names: Names, extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  const env = { ...process.env, ...TEST_ENV, ...(await testServiceEnv(names)), PORT: '0', LOG_LEVEL: 'info', ...extraEnv };
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/webhook-service/src/main.ts'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('webhook-service child did not start')), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (/listening/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`webhook-service child exited with ${code}`)));
  });
  return child;
}
