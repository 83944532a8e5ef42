import { createServer } from 'node:net';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { verifyWebhookSignature } from '@dfc/contracts';
import { api, cleanUp, freshNames, operator, Receivers, registerEndpoint, sleep, startService, statusChanged, type TestService } from '../support.js';

/** A port nobody listens on (yet). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('delivery attempts: retries, outcomes and the delivery log', () => {
  const names = freshNames();
  let service: TestService;
  const receivers = new Receivers();
  const receiver = () => receivers.start();
  const deliveriesOf = async (principal: ReturnType<typeof operator>, endpointId: string) =>
    (await api(service.url, principal, 'GET', `/api/webhooks/${endpointId}/deliveries`)).body;

  before(async () => {
    service = await startService(names);
  });
  after(async () => {
    await receivers.closeAll();
    await service?.close();
    await cleanUp(names);
  });

  it('when the receiver answers 500 twice and then 200, then the event arrives with the same id and a fresh signature each time', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = (_request, index) => (index < 2 ? { status: 500, body: 'down' } : { status: 200 });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    const event = statusChanged(alice.operator_uuid!);
    await service.broker.publish(event);
    await waitFor(() => hook.requests.length === 3, 5000);
    expect(hook.requests.map((request) => request.headers['x-webhook-id'])).to.deep.equal([event.id, event.id, event.id]);
    expect(new Set(hook.requests.map((request) => request.rawBody)).size).to.equal(1);
    for (const request of hook.requests) {
      expect(
        verifyWebhookSignature({ rawBody: request.rawBody, header: String(request.headers['x-webhook-signature']), secrets: endpoint.secret }).valid,
      ).to.equal(true);
    }
    const log = await waitFor(async () => {
      const page = await deliveriesOf(alice, endpoint.id);
      return page.data[0]?.status === 'succeeded' ? page : undefined;
    });
    const delivery = log.data[0];
    expect(delivery).to.include({ event_id: event.id, event: 'status_change', attempt_count: 3, next_attempt_at: null });
    expect(delivery.attempts.map((attempt: { status_code: number }) => attempt.status_code)).to.deep.equal([500, 500, 200]);
    expect(delivery.attempts[0]).to.include({ response_body: 'down' });
    expect(delivery.attempts[0].error).to.match(/answered 500/);
    expect(delivery.attempts[0].latency_ms).to.be.a('number');
  });

  it('when the receiver refuses connections and comes up later, then every event arrives after retries', async () => {
    const alice = operator();
    const port = await freePort();
    const endpoint = await registerEndpoint(service.url, alice, `http://127.0.0.1:${port}/late`);
    const events = [statusChanged(alice.operator_uuid!), statusChanged(alice.operator_uuid!), statusChanged(alice.operator_uuid!)];
    for (const event of events) await service.broker.publish(event);
    await waitFor(async () => {
      const page = await deliveriesOf(alice, endpoint.id);
      return (
        page.data.length === 3 &&
        page.data.every((delivery: { attempts: Array<{ error: string }> }) => delivery.attempts[0]?.error === 'Connection refused.')
      );
    });
    const late = await receivers.start(port);
    await waitFor(() => events.every((event) => late.requests.some((request) => request.headers['x-webhook-id'] === event.id)), 5000);
    expect(late.requests.map((request) => request.path)).to.deep.equal(['/late', '/late', '/late']);
  });

  it('when every attempt fails, then after the schedule (4 attempts) the delivery is failed and kept; redelivery sends it again', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = () => ({ status: 502 });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const failed = await waitFor(async () => {
      const page = await deliveriesOf(alice, endpoint.id);
      return page.data[0]?.status === 'failed' ? page.data[0] : undefined;
    });
    expect(failed).to.include({ attempt_count: 4, next_attempt_at: null });
    expect(hook.requests).to.have.length(4);

    hook.answer = () => ({ status: 204 });
    const redelivered = await api(service.url, alice, 'POST', `/api/webhooks/${endpoint.id}/deliveries/${failed.id}/redeliver`);
    expect(redelivered.status).to.equal(202);
    expect(redelivered.body.data.id).to.equal(failed.id);
    await waitFor(() => hook.requests.length === 5);
    const done = await waitFor(async () => {
      const page = await deliveriesOf(alice, endpoint.id);
      return page.data[0]?.status === 'succeeded' ? page.data[0] : undefined;
    });
    expect(done.attempt_count).to.equal(5);
    expect(hook.requests[4]!.headers['x-webhook-id']).to.equal(failed.event_id);
  });

  it('when a delivery is still pending, then redeliver answers 409; an unknown delivery 404', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = () => ({ status: 500, delayMs: 300 });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const pending = await waitFor(async () => (await deliveriesOf(alice, endpoint.id)).data[0]);
    const again = await api(service.url, alice, 'POST', `/api/webhooks/${endpoint.id}/deliveries/${pending.id}/redeliver`);
    expect(again.status).to.equal(409);
    const unknown = await api(service.url, alice, 'POST', `/api/webhooks/${endpoint.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`);
    expect(unknown.status).to.equal(404);
  });

  it('when the receiver answers 410, then the endpoint is disabled at once with a reason and nothing is retried', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = () => ({ status: 410 });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const disabled = await waitFor(async () => {
      const shown = await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}`);
      return shown.body.data.enabled === false ? shown.body.data : undefined;
    });
    expect(disabled.disabled_reason).to.equal('The endpoint answered 410 Gone.');
    await sleep(400);
    expect(hook.requests).to.have.length(1);
    expect((await deliveriesOf(alice, endpoint.id)).data[0].status).to.equal('failed');
  });

  it('when the receiver answers 429 with Retry-After: 1, then the next attempt waits a second instead of 50 ms', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = (_request, index) => (index === 0 ? { status: 429, headers: { 'Retry-After': '1' } } : { status: 200 });
    await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    await waitFor(() => hook.requests.length === 2, 5000);
    const gap = hook.requests[1]!.at - hook.requests[0]!.at;
    expect(gap).to.be.within(950, 2500);
  });

  it('when the receiver answers 503 with an HTTP-date Retry-After, then that date is honoured', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = (_request, index) =>
      index === 0 ? { status: 503, headers: { 'Retry-After': new Date(Date.now() + 2000).toUTCString() } } : { status: 200 };
    await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    await waitFor(() => hook.requests.length === 2, 6000);
    // HTTP dates have whole seconds, so the wait is between 1 and 2 seconds.
    expect(hook.requests[1]!.at - hook.requests[0]!.at).to.be.within(950, 3000);
  });

  it('when the receiver redirects, then the redirect is not followed and the attempt is a failure', async () => {
    const alice = operator();
    const [hook, target] = [await receiver(), await receiver()];
    hook.answer = () => ({ status: 302, headers: { Location: `${target.url}/elsewhere` } });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const failed = await waitFor(async () => {
      const page = await deliveriesOf(alice, endpoint.id);
      return page.data[0]?.status === 'failed' ? page.data[0] : undefined;
    });
    expect(target.requests).to.have.length(0);
    expect(failed.attempts[0].status_code).to.equal(302);
    expect(failed.attempts[0].error).to.match(/Redirect \(302\) not followed/);
  });

  it('when the answer is long, then the log keeps its first 1 KiB', async () => {
    const alice = operator();
    const hook = await receiver();
    hook.answer = () => ({ status: 200, body: 'x'.repeat(5000) });
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const done = await waitFor(async () => {
      const page = await deliveriesOf(alice, endpoint.id);
      return page.data[0]?.status === 'succeeded' ? page.data[0] : undefined;
    });
    expect(done.attempts[0].response_body).to.equal('x'.repeat(1024));
  });

  it('when the secret was rotated, then deliveries carry two v1 signatures, new first, each verifying with its secret', async () => {
    const alice = operator();
    const hook = await receiver();
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    const rotated = await api(service.url, alice, 'POST', `/api/webhooks/${endpoint.id}/rotate-secret`);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    await waitFor(() => hook.requests.length === 1);
    const request = hook.requests[0]!;
    const header = String(request.headers['x-webhook-signature']);
    const [, newV1, oldV1] = header.split(',');
    expect(header).to.match(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const t = header.slice(2, header.indexOf(','));
    const withOnly = (v1: string | undefined) => `t=${t},${v1}`;
    const verify = (signature: string, secret: string) =>
      verifyWebhookSignature({ rawBody: request.rawBody, header: signature, secrets: secret }).valid;
    expect(verify(withOnly(newV1), rotated.body.data.secret)).to.equal(true);
    expect(verify(withOnly(oldV1), endpoint.secret)).to.equal(true);
    expect(verify(withOnly(newV1), endpoint.secret)).to.equal(false);
  });

  describe('POST /api/webhooks/:id/test', () => {
    it('when called, then 202 and a signed ping arrives through the normal path and shows in the log', async () => {
      const alice = operator();
      const hook = await receiver();
      const endpoint = await registerEndpoint(service.url, alice, hook.url, ['review_complete']);
      const response = await api(service.url, alice, 'POST', `/api/webhooks/${endpoint.id}/test`);
      expect(response.status).to.equal(202);
      expect(response.body.data).to.include({ event: 'ping', status: 'pending' });
      await waitFor(() => hook.requests.length === 1);
      const request = hook.requests[0]!;
      expect(request.headers['x-webhook-event']).to.equal('ping');
      expect(request.headers['x-webhook-id']).to.equal(response.body.data.event_id);
      expect(
        verifyWebhookSignature({ rawBody: request.rawBody, header: String(request.headers['x-webhook-signature']), secrets: endpoint.secret }).valid,
      ).to.equal(true);
      expect(JSON.parse(request.rawBody)).to.include({ event: 'ping', id: response.body.data.event_id });
      const log = await waitFor(async () => {
        const page = await deliveriesOf(alice, endpoint.id);
        return page.data[0]?.status === 'succeeded' ? page : undefined;
      });
      expect(log.meta.total).to.equal(1);
    });

    it('when the endpoint is disabled, then 409', async () => {
      const alice = operator();
      const endpoint = await registerEndpoint(service.url, alice, 'https://hooks.example.com/x');
      await api(service.url, alice, 'PATCH', `/api/webhooks/${endpoint.id}`, { enabled: false });
      expect((await api(service.url, alice, 'POST', `/api/webhooks/${endpoint.id}/test`)).status).to.equal(409);
    });
  });

  describe('GET /api/webhooks/:id/deliveries', () => {
    it('when there are several deliveries, then they are listed newest first, paginated, filterable by status', async () => {
      const alice = operator();
      const hook = await receiver();
      const endpoint = await registerEndpoint(service.url, alice, hook.url);
      const events = [statusChanged(alice.operator_uuid!), statusChanged(alice.operator_uuid!), statusChanged(alice.operator_uuid!)];
      for (const event of events) {
        await service.broker.publish(event);
        await waitFor(() => hook.requests.some((request) => request.headers['x-webhook-id'] === event.id));
        await sleep(20);
      }
      const page = await deliveriesOf(alice, endpoint.id);
      expect(page.data.map((delivery: { event_id: string }) => delivery.event_id)).to.deep.equal(events.map((event) => event.id).reverse());
      const second = (await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries?per_page=1&page=2`)).body;
      expect(second.data[0].event_id).to.equal(events[1]!.id);
      expect(second.meta).to.include({ total: 3, last_page: 3 });
      const failed = (await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries?status=failed`)).body;
      expect(failed.meta.total).to.equal(0);
      expect((await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries?status=nope`)).status).to.equal(422);
    });
  });
});
