import { expect } from 'chai';
import { newEvent, RoutingKeys } from '@dfc/contracts';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { removeBrokerTopology, testDependencies, uniqueName, waitFor } from '@dfc/kit/testing';
import { consumeRevocations } from '../../src/events/revocations.js';
import { grantOperatorKey, startTestGateway, type TestGateway } from '../support/gateway.js';

describe('api_key.revoked → gateway key cache', () => {
  const log = createLogger('gateway-test', 'silent');
  let exchange: string;
  let publisher: Broker;
  let replicas: Array<{ gateway: TestGateway; broker: Broker }>;

  before(async () => {
    const { amqpUrl } = await testDependencies();
    exchange = uniqueName('gateway_revocations');
    publisher = await Broker.connect(amqpUrl, exchange, log);
    // Two replicas: each must hear every revocation (broadcast queues).
    replicas = await Promise.all(
      [1, 2].map(async () => {
        const broker = await Broker.connect(amqpUrl, exchange, log);
        const gateway = await startTestGateway();
        await consumeRevocations(broker, gateway.keys, log);
        return { gateway, broker };
      }),
    );
  });

  after(async () => {
    for (const { gateway, broker } of replicas) {
      await gateway.closeAll();
      await broker.close();
    }
    await publisher.close();
    await removeBrokerTopology((await testDependencies()).amqpUrl, exchange);
  });

  it('when a cached key is revoked, then every replica refuses it within 2 s although its cache TTL is 30 s', async () => {
    const operatorUuid = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';
    // One key, known to the stub operator-service of both replicas.
    const shared = grantOperatorKey(replicas[0]!.gateway, operatorUuid);
    replicas[1]!.gateway.validKeys.set(shared.key, shared.principal);
    for (const { gateway } of replicas) {
      const response = await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': shared.key } });
      expect(response.status).to.equal(200);
    }

    // The operator-service forgets the key and announces the revocation.
    for (const { gateway } of replicas) gateway.validKeys.delete(shared.key);
    const revokedAt = Date.now();
    await publisher.publish(newEvent(RoutingKeys.apiKeyRevoked, operatorUuid, { key_id: shared.principal.key_id }));

    for (const { gateway } of replicas) {
      await waitFor(async () => {
        const response = await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': shared.key } });
        return response.status === 401;
      }, 2_000);
    }
    expect(Date.now() - revokedAt).to.be.below(2_000);
  });

  it('when another key is revoked, then a cached key stays cached (no re-verification)', async () => {
    const { gateway } = replicas[0]!;
    const { key } = grantOperatorKey(gateway);
    await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } });
    const before = gateway.verifyCalls();
    await publisher.publish(newEvent(RoutingKeys.apiKeyRevoked, null, { key_id: 'ffffffffffffffff' }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } })).status).to.equal(200);
    expect(gateway.verifyCalls()).to.equal(before);
  });

  it('when a revocation event has no key_id, then it is ignored and the consumer keeps working', async () => {
    const { gateway } = replicas[0]!;
    const { key, principal } = grantOperatorKey(gateway);
    await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } });
    await publisher.publish(newEvent(RoutingKeys.apiKeyRevoked, null, { nothing: true }));
    gateway.validKeys.delete(key);
    await publisher.publish(newEvent(RoutingKeys.apiKeyRevoked, null, { key_id: principal.key_id }));
    await waitFor(async () => (await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } })).status === 401, 2_000);
  });

  it('GET /readyz: when the broker connection is gone and an upstream is down, then the gateway is still ready', async () => {
    const broker = await Broker.connect((await testDependencies()).amqpUrl, exchange, log);
    const gateway = await startTestGateway();
    await consumeRevocations(broker, gateway.keys, log);
    await broker.close();
    await gateway.flights.close();
    const response = await fetch(`${gateway.url}/readyz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: 'ready', checks: {} });
    await gateway.closeAll();
  });
});
