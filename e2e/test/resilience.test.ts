import { expect } from 'chai';
import mongoose from 'mongoose';
import { waitFor } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, WebhookReceiver, type RegisteredOperator } from '../src/client.js';
import { localStackRunning, pause, resume } from '../src/stack.js';
import { startSystem, type ServiceName, type System } from '../src/system.js';

const SERVICES: ServiceName[] = ['gateway', 'operator-service', 'flight-request-service', 'webhook-service'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The broker and the database go down under a running system and come back:
 * what was accepted meanwhile is kept, and every event still reaches the
 * client. Needs the local stack, which these tests take down for real.
 */
describe('resilience: broker and database outages', function () {
  this.timeout(300_000);
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;
  const receiver = new WebhookReceiver();

  before(async function () {
    if (!(await localStackRunning())) {
      // With testcontainers there is no local stack to take down; the outage stories need one.
      this.skip();
    }
    system = await startSystem({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '200,500,1000,2000,4000' } });
    client = new GatewayClient(system.gatewayUrl);
    await receiver.start();
    operator = await client.registerOperatorWithKey();
    const endpoint = await client.send('POST', '/api/webhooks', {
      key: operator.key,
      body: { url: receiver.url, events: ['status_change', 'cascade_rejection', 'review_complete'] },
    });
    expect(endpoint.status).to.equal(201);
  });

  /** The flight request's unpublished events, read from its document (the relay removes them once confirmed). */
  async function outboxOf(uuid: string): Promise<unknown[]> {
    const connection = await mongoose.createConnection(system.mongoUrl).asPromise();
    try {
      const flightRequests = connection
        .useDb(system.database('flight-request-service'))
        .collection<{ _id: string; outbox: unknown[] }>('flight_requests');
      return (await flightRequests.findOne({ _id: uuid }))?.outbox ?? [];
    } finally {
      await connection.close();
    }
  }

  after(async () => {
    await resume('broker').catch(() => undefined);
    await resume('database').catch(() => undefined);
    await receiver.close();
    await system?.stop();
  });

  it('POST /api/flight-requests, GET /readyz: when the broker is down, then every service stays ready, the request is accepted with its events held in its outbox, and its status_change arrives once the broker is back', async () => {
    await pause('broker');
    let uuid: string;
    try {
      const submitted = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(201);
      uuid = submitted.body.data.uuid;
      // Past a few relay sweeps (one a second): the events stay in the document, unpublished.
      await sleep(2_500);
      expect(await outboxOf(uuid), 'the outbox holds the events').to.have.length.above(0);
      for (const service of SERVICES) {
        const ready = await fetch(`${system.url(service)}/readyz`);
        expect(ready.status, `${service} /readyz during the broker outage: ${await ready.text()}`).to.equal(200);
      }
      expect(receiver.about(uuid, 'status_change')).to.have.length(0);
    } finally {
      await resume('broker');
    }
    const hooks = await waitFor(
      () => {
        const arrived = receiver.about(uuid, 'status_change');
        return arrived.length > 0 ? arrived : undefined;
      },
      120_000,
      200,
    );
    expect(hooks[0]!.body.data['status']).to.be.oneOf(['Pending', 'Approved']);
    expect(await outboxOf(uuid), 'published and removed from the outbox').to.have.length(0);
    const read = await client.send('GET', `/api/flight-requests/${uuid}`, { key: operator.key });
    expect(read.status).to.equal(200);
  });

  it('GET /api/flight-requests/{uuid}: when the database restarts, then reads answer 503 while it is down and succeed again after, with nothing lost', async () => {
    const submitted = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, {}, 4.95) });
    expect(submitted.status).to.equal(201);
    await pause('database');
    try {
      const during = await client.send('GET', `/api/flight-requests/${submitted.body.data.uuid}`, { key: operator.key });
      expect(during.status).to.equal(503);
    } finally {
      await resume('database');
    }
    const after = await waitFor(
      async () => {
        const read = await client.send('GET', `/api/flight-requests/${submitted.body.data.uuid}`, { key: operator.key });
        return read.status === 200 ? read : undefined;
      },
      60_000,
      250,
    );
    expect(after.body.data.uuid).to.equal(submitted.body.data.uuid);
    const me = await client.send('GET', `/api/operators/${operator.uuid}`, { key: operator.key });
    expect(me.status).to.equal(200);
  });

  it('POST /api/flight-requests: when operator-service is down, then 503 names the operator registry and nothing is stored; once it is back, the same submission is accepted', async () => {
    const listed = async () => {
      const list = await client.send('GET', '/api/flight-requests', { key: operator.key });
      expect(list.status).to.equal(200);
      return list.body.meta.total as number;
    };
    // The list just now left the key in the gateway's memory, so the submission reaches flight-request-service.
    const stored = await listed();
    const body = flightRequestBody(operator, {}, 4.8);
    await system.kill('operator-service');
    try {
      const down = await client.send('POST', '/api/flight-requests', { key: operator.key, body });
      expect(down.status).to.equal(503);
      expect(down.body).to.deep.equal({ message: 'The operator registry is unavailable; try again.' });
    } finally {
      await system.start('operator-service');
    }
    expect(await listed(), 'nothing stored while operator-service was down').to.equal(stored);
    const up = await client.send('POST', '/api/flight-requests', { key: operator.key, body });
    expect(up.status, JSON.stringify(up.body)).to.equal(201);
    expect(await listed()).to.equal(stored + 1);
    // Its status_change webhooks arrive now, the last one (screened, no longer Pending) included, not during the
    // next story, which refuses the first one it sees.
    const screened = () => receiver.about(up.body.data.uuid, 'status_change').some((hook) => hook.body.data['status'] !== 'Pending');
    await waitFor(() => (screened() ? true : undefined), 60_000, 50);
  });

  it('a scheduled retry: when the broker restarts while the retry waits in its delay queue, then the retry still arrives', async () => {
    const retryAfterSeconds = 10;
    let refused: string | undefined;
    receiver.answer = (hook) => {
      if (hook.body.event !== 'status_change' || refused !== undefined) return { status: 200 };
      refused = hook.body.id;
      return { status: 503, headers: { 'Retry-After': String(retryAfterSeconds) } };
    };
    try {
      const submitted = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, {}, 4.85) });
      expect(submitted.status).to.equal(201);
      const uuid: string = submitted.body.data.uuid;
      const [first] = await waitFor(
        () => {
          const arrived = receiver.about(uuid, 'status_change');
          return arrived.length > 0 ? arrived : undefined;
        },
        60_000,
        50,
      );
      expect(first!.body.id).to.equal(refused);
      const refusedAt = Date.now();
      // The retry now waits in a durable delay queue; the lost-delivery sweep would take 30 minutes.
      await pause('broker');
      await resume('broker');
      const retried = await waitFor(
        () => {
          const arrived = receiver.about(uuid, 'status_change').filter((hook) => hook.body.id === refused);
          return arrived.length > 1 ? arrived : undefined;
        },
        120_000,
        200,
      );
      expect(retried[1]!.headers['webhook-id']).to.equal(first!.headers['webhook-id']);
      expect(Date.now() - refusedAt, 'not before the Retry-After the receiver asked for').to.be.at.least(retryAfterSeconds * 1000 - 500);
    } finally {
      receiver.answer = () => ({ status: 200 });
    }
  });
});
