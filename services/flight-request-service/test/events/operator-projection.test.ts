import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import { waitFor } from '@dfc/kit/testing';
import { newEvent, RoutingKeys, type OperatorChanged } from '@dfc/contracts';
import { queueName } from '@dfc/kit/broker';
import { Queues } from '../../src/messaging.js';
import { operatorPrincipal, startTestService, type TestService } from '../support/test-service.js';
import { submission } from '../support/fixtures.js';

describe('operator projection (operator.registered / operator.updated)', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t.close();
    const connection = await connect(t.shared.amqpUrl);
    const channel = await connection.createChannel();
    await channel.deleteQueue(queueName(t.shared.exchange, Queues.operators));
    await connection.close();
  });

  const operatorChanged = (uuid: string, overrides: Partial<OperatorChanged> = {}): OperatorChanged => ({
    uuid,
    company_name: 'Skyview',
    email: 'ops@example.com',
    timezone: 'Europe/Amsterdam',
    exemption_for_ctr: false,
    ctr_exemption_number: null,
    ...overrides,
  });

  it('when operator.registered arrives, then the operator can submit flight requests', async () => {
    const uuid = randomUUID();
    const before = await t.call('POST', '/api/flight-requests', { as: operatorPrincipal(uuid), body: submission(uuid) });
    expect(before.status).to.equal(422);
    await t.broker.publish(newEvent(RoutingKeys.operatorRegistered, uuid, operatorChanged(uuid)));
    await waitFor(() => t.service.deps.operators.find(uuid).then((found) => found ?? undefined));
    const after = await t.call('POST', '/api/flight-requests', { as: operatorPrincipal(uuid), body: submission(uuid) });
    expect(after.status).to.equal(201);
  });

  it('when operator.updated arrives (twice, as a redelivery would), then the projection holds the new values', async () => {
    const uuid = randomUUID();
    await t.broker.publish(newEvent(RoutingKeys.operatorRegistered, uuid, operatorChanged(uuid)));
    await waitFor(() => t.service.deps.operators.find(uuid).then((found) => found ?? undefined));
    const update = newEvent(
      RoutingKeys.operatorUpdated,
      uuid,
      operatorChanged(uuid, { timezone: 'Pacific/Auckland', exemption_for_ctr: true, operator_registration_number: 'NLDabc123def456' }),
    );
    await t.broker.publish(update);
    await t.broker.publish(update);
    const projection = await waitFor(() => t.service.deps.operators.find(uuid).then((found) => (found?.exemption_for_ctr ? found : undefined)));
    expect(projection).to.include({ timezone: 'Pacific/Auckland', exemption_for_ctr: true, registration_number: 'NLDabc123def456' });
  });

  it('when an older event arrives after a newer one, then the newer values stay', async () => {
    const uuid = randomUUID();
    const older = newEvent(RoutingKeys.operatorRegistered, uuid, operatorChanged(uuid, { timezone: 'UTC' }));
    const newer = {
      ...newEvent(RoutingKeys.operatorUpdated, uuid, operatorChanged(uuid, { timezone: 'Asia/Tokyo' })),
      occurred_at: new Date(Date.now() + 1000).toISOString(),
    };
    await t.service.deps.operators.apply({
      uuid,
      timezone: 'Asia/Tokyo',
      exemption_for_ctr: false,
      registration_number: null,
      source_at: new Date(newer.occurred_at),
    });
    await t.broker.publish(older);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await t.service.deps.operators.find(uuid))?.timezone).to.equal('Asia/Tokyo');
  });
});
