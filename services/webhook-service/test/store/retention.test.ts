import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expireAsTtlWould } from '@dfc/kit/db';
import { deliveryId } from '../../src/domain/delivery-id.js';
import { newDelivery } from '../../src/use-cases/fan-out-event.js';
import type { WebhookEndpoint } from '../../src/store/endpoint-model.js';
import { cleanUp, freshNames, startService, type Names, type TestService } from '../support.js';

const DAY_MS = 86_400_000;

describe('retention of the delivery log: TTL on deliveries and attempts', () => {
  let names: Names;
  let running: TestService;

  before(async () => {
    names = freshNames();
    running = await startService(names, { WEBHOOK_DELIVERY_TTL_DAYS: '5', WEBHOOK_ATTEMPT_TTL_DAYS: '3' });
  });

  after(async () => {
    await running.close();
    await cleanUp(names);
  });

  async function isLocalEngine(): Promise<boolean> {
    return 'ferretdbVersion' in (await running.connection.db!.admin().command({ buildInfo: 1 }));
  }

  it('when the service runs with WEBHOOK_*_TTL_DAYS set, then the TTL indexes carry the configured seconds', async () => {
    const declared = (name: string) =>
      running.connection.models[name]!.schema.indexes().filter(
        ([, options]) => (options as { expireAfterSeconds?: number }).expireAfterSeconds !== undefined,
      );
    expect(declared('Delivery')).to.deep.equal([[{ updated_at: 1 }, { expireAfterSeconds: 5 * 86_400 }]]);
    expect(declared('DeliveryAttempt')).to.deep.equal([[{ at: 1 }, { expireAfterSeconds: 3 * 86_400 }]]);
    const built = async (collection: string) => running.connection.db!.collection(collection).listIndexes().toArray();
    const deliveries = (await built('webhook_deliveries')).find((index) => JSON.stringify(index['key']) === '{"updated_at":1}');
    const attempts = (await built('webhook_delivery_attempts')).find((index) => JSON.stringify(index['key']) === '{"at":1}');
    expect(deliveries, 'the deliveries TTL index').to.not.equal(undefined);
    expect(attempts, 'the attempts TTL index').to.not.equal(undefined);
    // The local engine refuses the option and keeps the key only; its expiry is done by the service (below).
    if (!(await isLocalEngine())) {
      expect(deliveries!['expireAfterSeconds']).to.equal(5 * 86_400);
      expect(attempts!['expireAfterSeconds']).to.equal(3 * 86_400);
    }
  });

  it('when a delivery and an attempt are older than their retention, then expiry deletes them and keeps the younger ones', async () => {
    const now = new Date();
    const endpoint = { _id: randomUUID(), operator_uuid: randomUUID() } as WebhookEndpoint;
    const delivery = (daysAgo: number) => {
      const at = new Date(now.getTime() - daysAgo * DAY_MS);
      const payload = { id: randomUUID(), event: 'status_change' as const, created_at: at.toISOString(), data: {} };
      return { ...newDelivery(endpoint, payload as Parameters<typeof newDelivery>[1], at, at), version: 0 };
    };
    const attempt = (daysAgo: number) => ({
      _id: randomUUID(),
      delivery_id: randomUUID(),
      endpoint_id: endpoint._id,
      at: new Date(now.getTime() - daysAgo * DAY_MS),
      status_code: 200,
      error: null,
      latency_ms: 5,
      response_body: null,
    });
    const [oldDelivery, youngDelivery] = [delivery(6), delivery(4)];
    const [oldAttempt, youngAttempt] = [attempt(4), attempt(2)];
    await running.connection.db!.collection('webhook_deliveries').insertMany([oldDelivery, youngDelivery] as never[]);
    await running.connection.db!.collection('webhook_delivery_attempts').insertMany([oldAttempt, youngAttempt] as never[]);

    // MongoDB's TTL monitor deletes them by itself (within a minute): the service's expiry round does nothing there.
    if (!(await isLocalEngine())) {
      expect(await expireAsTtlWould(running.connection, now)).to.equal(0);
      return;
    }
    expect(await expireAsTtlWould(running.connection, now)).to.equal(2);

    const left = async (collection: string) =>
      (await running.connection.db!.collection(collection).find({ endpoint_id: endpoint._id }).toArray()).map((document) => document['_id']);
    expect(await left('webhook_deliveries')).to.deep.equal([youngDelivery._id]);
    expect(await left('webhook_delivery_attempts')).to.deep.equal([youngAttempt._id]);
  });
});

describe('delivery ids: derived from (event, endpoint)', () => {
  it('when the same event reaches the same endpoint twice, then both deliveries get one id; another endpoint or event gets another', () => {
    const [event, endpoint] = [randomUUID(), randomUUID()];
    expect(deliveryId(event, endpoint)).to.equal(deliveryId(event, endpoint));
    expect(deliveryId(event, randomUUID())).to.not.equal(deliveryId(event, endpoint));
    expect(deliveryId(randomUUID(), endpoint)).to.not.equal(deliveryId(event, endpoint));
    expect(deliveryId(event, endpoint)).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('when a delivery is built for an event and an endpoint, then its _id is that pair’s id (RFC 9562 name-based, version 5)', () => {
    const endpoint = { _id: randomUUID(), operator_uuid: randomUUID() } as WebhookEndpoint;
    const payload = { id: randomUUID(), event: 'status_change' as const, created_at: new Date().toISOString(), data: {} };
    const built = newDelivery(endpoint, payload as Parameters<typeof newDelivery>[1], new Date(), new Date());
    expect(built._id).to.equal(deliveryId(payload.id, endpoint._id));
  });
});
