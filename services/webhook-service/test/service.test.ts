import { expect } from 'chai';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import { testDependencies, waitFor } from '@dfc/kit/testing';
import { verifyWebhookSignature } from '@dfc/contracts';
import { api, cleanUp, freshNames, operator, Receiver, registerEndpoint, startService, statusChanged, type TestService } from './support.js';

describe('webhook-service restarts', () => {
  const names = freshNames();
  const env = { WEBHOOK_RETRY_SCHEDULE_MS: '400,400,400' };
  let first: TestService | undefined;
  let second: TestService | undefined;
  const hook = new Receiver();

  before(async () => {
    await hook.start();
  });
  after(async () => {
    await hook.close();
    await first?.close().catch(() => undefined);
    await second?.close();
    await cleanUp(names);
  });

  it('when the service stops mid-retry and a new instance starts on the same database, then the pending retry is still delivered', async () => {
    first = await startService(names, env);
    const alice = operator();
    hook.answer = () => ({ status: 500 });
    const endpoint = await registerEndpoint(first.url, alice, hook.url);
    const event = statusChanged(alice.operator_uuid!);
    await first.broker.publish(event);
    await waitFor(() => hook.requests.length === 1);
    await first.close();
    first = undefined;

    hook.answer = () => ({ status: 200 });
    second = await startService(names, env);
    await waitFor(() => hook.requests.length === 2, 5000);
    const retried = hook.requests[1]!;
    expect(retried.headers['x-webhook-id']).to.equal(event.id);
    expect(
      verifyWebhookSignature({ rawBody: retried.rawBody, header: String(retried.headers['x-webhook-signature']), secrets: endpoint.secret }).valid,
    ).to.equal(true);
    // The delivery's status and the record of the attempt that set it are written side by side (attempt-delivery.ts):
    // the status may read 'succeeded' a moment before that attempt's record is there. Waited for both, so that
    // the assertion below is about the attempts the service recorded, not about which write a read saw first.
    const log = await waitFor(async () => {
      const delivery = (await api(second!.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).body.data[0];
      const succeeded = delivery?.status === 'succeeded' && delivery.attempts.some((attempt: { status_code: number }) => attempt.status_code === 200);
      return succeeded ? delivery : undefined;
    });
    expect(log.attempts.map((attempt: { status_code: number }) => attempt.status_code)).to.deep.equal([500, 200]);
  });

  it('when events are published while the service is down, then the durable queue keeps them and they are delivered once it is back', async () => {
    const alice = operator();
    await registerEndpoint(second!.url, alice, hook.url);
    await second!.close();
    second = undefined;
    const { amqpUrl } = await testDependencies();
    const broker = await Broker.connect(amqpUrl, names.exchange, createLogger('webhook-service-test', 'silent'));
    const event = statusChanged(alice.operator_uuid!);
    await broker.publish(event);
    await broker.close();
    second = await startService(names, env);
    await waitFor(() => hook.requests.some((request) => request.headers['x-webhook-id'] === event.id), 5000);
  });
});
