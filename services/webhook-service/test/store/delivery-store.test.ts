import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { retentionOf } from '../../src/config.js';
import { newDelivery } from '../../src/use-cases/fan-out-event.js';
import { attemptModel } from '../../src/store/attempt-model.js';
import { deliveryModel } from '../../src/store/delivery-model.js';
import { DeliveryStore } from '../../src/store/delivery-store.js';
import type { WebhookEndpoint } from '../../src/store/endpoint-model.js';
import { cleanUp, freshNames, monitoredStoreDeps, startService, type Names, type TestService } from '../support.js';

describe('DeliveryStore: the deliveries of events fanned out at the same moment', () => {
  let names: Names;
  let running: TestService;
  let monitored: Awaited<ReturnType<typeof monitoredStoreDeps>>;
  let deliveries: DeliveryStore;
  const inserts: number[] = [];

  before(async () => {
    names = freshNames();
    running = await startService(names);
    monitored = await monitoredStoreDeps(running, names, (event) => {
      if (event.commandName === 'insert' && event.command['insert'] === 'webhook_deliveries')
        inserts.push((event.command['documents'] as unknown[]).length);
    });
    const retention = retentionOf(running.config);
    deliveries = new DeliveryStore(
      deliveryModel(monitored.connection, retention.deliverySeconds),
      attemptModel(monitored.connection, retention.attemptSeconds),
      monitored.relay,
    );
  });

  after(async () => {
    await monitored.close();
    await running.close();
    await cleanUp(names);
  });

  function endpoint(): WebhookEndpoint {
    return { _id: randomUUID(), operator_uuid: randomUUID() } as WebhookEndpoint;
  }

  function deliveriesOf(eventId: string, endpoints: WebhookEndpoint[]) {
    const payload = { id: eventId, event: 'status_change' as const, created_at: new Date().toISOString(), data: {} };
    return endpoints.map((target) => newDelivery(target, payload as Parameters<typeof newDelivery>[1], new Date(), new Date()));
  }

  it('when ten events are fanned out at once, then each gets exactly its own new deliveries and they share insert commands', async () => {
    const endpoints = [endpoint(), endpoint()];
    const events = Array.from({ length: 10 }, () => deliveriesOf(randomUUID(), endpoints));
    inserts.length = 0;
    const created = await Promise.all(events.map((batch) => deliveries.createEach(batch)));
    created.forEach((stored, index) => expect(stored.map((delivery) => delivery._id)).to.deep.equal(events[index]!.map((delivery) => delivery._id)));
    expect(inserts.reduce((sum, count) => sum + count, 0)).to.equal(20);
    expect(inserts.length).to.be.lessThan(10);
  });

  it('when an event handled before comes again beside a new one, then only the new one’s deliveries are returned as created', async () => {
    const endpoints = [endpoint(), endpoint()];
    const eventId = randomUUID();
    await deliveries.createEach(deliveriesOf(eventId, endpoints));
    const again = deliveriesOf(eventId, endpoints);
    const fresh = deliveriesOf(randomUUID(), endpoints);
    const [repeated, created] = await Promise.all([deliveries.createEach(again), deliveries.createEach(fresh)]);
    expect(repeated).to.deep.equal([]);
    expect(created.map((delivery) => delivery._id)).to.deep.equal(fresh.map((delivery) => delivery._id));
    expect(await running.service.deps.deliveries.unattempted(eventId)).to.have.length(2);
  });
});
