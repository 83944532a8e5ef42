import { expect } from 'chai';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import { waitFor } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, WebhookReceiver } from '../src/client.js';
import { brokerPermissions, createBrokerUsers, type BrokerUsersRun } from '../src/broker-users.js';
import { localStackRunning } from '../src/stack.js';
import { startSystem, type ServiceName, type System } from '../src/system.js';

const SERVICES: ServiceName[] = ['gateway', 'operator-service', 'flight-request-service', 'webhook-service'];

/**
 * Each service on the broker as its own user, with exactly the permissions of
 * k8s/components/data-layer/rabbitmq-users.yaml, on the production names
 * (exchange dfc.events, unprefixed queues) in a vhost of the run's own: the
 * whole system starts (every declaration, binding and consumer), publishes
 * through its outboxes, delivers a webhook through a delay queue and drops a
 * revoked key through the gateway's broadcast queue; and what a service does
 * not do is refused. Needs the local stack's rabbitmqctl to create the users.
 */
describe('broker permissions: every service works with only its own user’s permissions', function () {
  this.timeout(180_000);
  let users: BrokerUsersRun;
  let system: System | undefined;
  let client: GatewayClient;
  const receiver = new WebhookReceiver();

  before(async function () {
    if (!(await localStackRunning())) {
      // With testcontainers there is no local rabbitmqctl to create the users with.
      this.skip();
    }
    const { amqpUrl } = await import('@dfc/kit/testing').then((kit) => kit.testDependencies());
    users = await createBrokerUsers(amqpUrl);
    system = await startSystem({
      env: { AMQP_EXCHANGE: 'dfc.events', RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE_MS: '300,600,1200' },
      serviceEnv: Object.fromEntries(SERVICES.map((name) => [name, { AMQP_URL: users.url(`dfc-amqp-${name}`) }])),
    });
    client = new GatewayClient(system.gatewayUrl);
    await receiver.start();
  });
  after(async () => {
    await receiver.close();
    await system?.stop();
    await users?.remove();
  });

  it('the manifest gives every service, and the replay command, a user of its own', () => {
    expect([...brokerPermissions().keys()].sort()).to.deep.equal(
      [...SERVICES.map((name) => `dfc-amqp-${name}`), 'dfc-amqp-dead-letter-replay'].sort(),
    );
  });

  it('when a client registers, submits and its receiver fails once, then the webhook arrives through a delay queue; a revoked key is refused at once', async () => {
    let calls = 0;
    receiver.answer = () => (++calls === 1 ? { status: 503 } : { status: 200 });
    const operator = await client.registerOperatorWithKey();
    const endpoint = await client.send('POST', '/api/webhooks', { key: operator.key, body: { url: receiver.url, events: ['status_change'] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);

    // operator.registered (operator-service) → flight-request-service.operators; the submission's
    // status_changed (flight-request-service) → webhook-service.events → .attempts → .delay.300ms → .attempts.
    const submitted = await waitFor(
      async () => {
        const answer = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator) });
        return answer.status === 201 ? answer : undefined;
      },
      20_000,
      200,
    );
    const uuid: string = submitted.body.data.uuid;
    await waitFor(() => receiver.about(uuid, 'status_change').length >= 2, 30_000, 50);
    expect(calls).to.be.at.least(2);

    // api_key.revoked (operator-service) → the gateway's broadcast queue (amq.gen-*).
    const revoked = await client.send('DELETE', `/api/api-keys/${operator.keyId}`, { key: system!.adminKey });
    expect(revoked.status, JSON.stringify(revoked.body)).to.be.oneOf([200, 204]);
    await waitFor(async () => (await client.send('GET', '/api/flight-requests', { key: operator.key })).status === 401, 5_000, 50);
    for (const name of SERVICES) expect(system!.logs(name), name).to.not.match(/ACCESS_REFUSED|access to .* refused/i);
  });

  describe('what a service does not do is refused', () => {
    /** Runs `action` on a fresh channel as that user; resolves to the broker's refusal, or undefined. */
    async function as(secret: string, action: (channel: Channel) => unknown): Promise<string | undefined> {
      const connection: ChannelModel = await connect(users.url(secret));
      connection.on('error', () => undefined);
      try {
        const channel = await connection.createChannel();
        channel.on('error', () => undefined);
        await action(channel);
        // A refused publish closes the channel asynchronously; a round trip brings the refusal.
        await channel.checkExchange('dfc.events');
        return undefined;
      } catch (error) {
        return (error as Error).message;
      } finally {
        await connection.close().catch(() => undefined);
      }
    }
    const refused = /ACCESS_REFUSED/;

    it('the gateway cannot read webhook-service.attempts nor publish on dfc.events', async () => {
      expect(await as('dfc-amqp-gateway', (channel) => channel.get('webhook-service.attempts'))).to.match(refused);
      expect(await as('dfc-amqp-gateway', (channel) => channel.publish('dfc.events', 'zone.changed', Buffer.from('{}')))).to.match(refused);
    });

    it('operator-service cannot declare, bind or read another service’s queue', async () => {
      expect(
        await as('dfc-amqp-operator-service', (channel) =>
          channel.assertQueue('flight-request-service.operators', { durable: true, arguments: { 'x-queue-type': 'quorum' } }),
        ),
      ).to.match(refused);
      expect(await as('dfc-amqp-operator-service', (channel) => channel.get('flight-request-service.operators'))).to.match(refused);
      expect(await as('dfc-amqp-operator-service', (channel) => channel.bindQueue('dfc.events.dead-letters', 'dfc.events', '#'))).to.match(refused);
    });

    it('flight-request-service cannot read webhook-service.events nor send to a queue through the default exchange', async () => {
      expect(await as('dfc-amqp-flight-request-service', (channel) => channel.get('webhook-service.events'))).to.match(refused);
      expect(await as('dfc-amqp-flight-request-service', (channel) => channel.sendToQueue('webhook-service.attempts', Buffer.from('{}')))).to.match(
        refused,
      );
    });

    it('webhook-service cannot read the dead letters nor flight-request-service.operators, nor declare a queue of another name', async () => {
      expect(await as('dfc-amqp-webhook-service', (channel) => channel.get('dfc.events.dead-letters'))).to.match(refused);
      expect(await as('dfc-amqp-webhook-service', (channel) => channel.get('flight-request-service.operators'))).to.match(refused);
      expect(await as('dfc-amqp-webhook-service', (channel) => channel.assertQueue('webhook-service.anything', { durable: true }))).to.match(refused);
    });

    it('the replay user declares nothing and publishes only on dfc.events', async () => {
      expect(
        await as('dfc-amqp-dead-letter-replay', (channel) =>
          channel.assertQueue('dfc.events.dead-letters', { durable: true, arguments: { 'x-queue-type': 'quorum' } }),
        ),
      ).to.match(refused);
      expect(await as('dfc-amqp-dead-letter-replay', (channel) => channel.sendToQueue('webhook-service.attempts', Buffer.from('{}')))).to.match(
        refused,
      );
      expect(await as('dfc-amqp-dead-letter-replay', (channel) => channel.get('webhook-service.attempts'))).to.match(refused);
      expect(await as('dfc-amqp-dead-letter-replay', (channel) => channel.publish('dfc.events', 'zone.changed', Buffer.from('{}')))).to.equal(
        undefined,
      );
    });
  });
});
