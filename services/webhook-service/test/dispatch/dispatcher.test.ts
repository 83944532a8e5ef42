import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { api, cleanUp, freshNames, operator, Receiver, registerEndpoint, sleep, startService, statusChanged, type TestService } from '../support.js';

describe('dispatcher limits', () => {
  const names = freshNames();
  let service: TestService;
  const slow = new Receiver();
  const fast = new Receiver();
  let slowConcurrent = 0;
  let slowPeak = 0;
  let releaseSlow = () => {};
  const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));

  before(async () => {
    service = await startService(names, { WEBHOOK_MAX_IN_FLIGHT: '4', WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '2' });
    await slow.start();
    await fast.start();
    // The slow receiver answers only when the test releases it, so the
    // assertions do not depend on how fast this machine happens to be.
    slow.answer = () => {
      slowConcurrent++;
      slowPeak = Math.max(slowPeak, slowConcurrent);
      return { status: 200, hold: slowGate.then(() => void slowConcurrent--) };
    };
  });
  after(async () => {
    releaseSlow();
    await Promise.all([slow.close(), fast.close()]);
    await service?.close();
    await cleanUp(names);
  });

  it('when one endpoint is slow and busy, then another endpoint\'s delivery is not held up, and the slow one never gets more than its limit at once', async () => {
    const [alice, bob] = [operator(), operator()];
    await registerEndpoint(service.url, alice, slow.url);
    await registerEndpoint(service.url, bob, fast.url);
    for (let index = 0; index < 8; index++) await service.broker.publish(statusChanged(alice.operator_uuid!));
    await waitFor(() => slow.requests.length >= 2);
    await service.broker.publish(statusChanged(bob.operator_uuid!));
    await waitFor(() => fast.requests.length === 1, 5000);
    // Bob's delivery went through while both of Alice's slots were still held.
    expect(slow.requests).to.have.length(2);
    releaseSlow();
    await waitFor(() => slow.requests.length === 8, 10_000);
    expect(slowPeak).to.equal(2);
  });
});

describe('SSRF protection at send time', () => {
  const names = freshNames();
  let service: TestService;
  const hook = new Receiver();

  before(async () => {
    service = await startService(names, { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
    await hook.start();
  });
  after(async () => {
    await hook.close();
    await service?.close();
    await cleanUp(names);
  });

  it('when a host name resolves to a loopback address, then nothing is sent and the attempt says why', async () => {
    const alice = operator();
    const port = new URL(hook.url).port;
    const created = await api(service.url, alice, 'POST', '/api/webhooks', { url: `http://localhost:${port}/hook`, events: ['status_change'] });
    expect(created.status).to.equal(201);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const delivery = await waitFor(async () => {
      const page = (await api(service.url, alice, 'GET', `/api/webhooks/${created.body.data.id}/deliveries`)).body;
      return page.data[0]?.attempts.length >= 2 ? page.data[0] : undefined;
    });
    expect(delivery.attempts[0].status_code).to.equal(null);
    expect(delivery.attempts[0].error).to.match(/^Refused: the target resolves to a non-public address/);
    expect(hook.requests).to.have.length(0);
  });

  it('when the url is a literal loopback address, then creation is refused with 422', async () => {
    const response = await api(service.url, operator(), 'POST', '/api/webhooks', { url: `${hook.url}/hook`, events: ['status_change'] });
    expect(response.status).to.equal(422);
    expect(response.body.errors.url[0]).to.match(/private, loopback or link-local/);
  });
});

describe('disabling an endpoint that only fails', () => {
  const names = freshNames();
  let service: TestService;
  const hook = new Receiver();

  before(async () => {
    // 5 days in production; 300 ms here, with a schedule long enough to outlast it.
    service = await startService(names, { WEBHOOK_DISABLE_AFTER_MS: '300', WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100,100,100,100' });
    await hook.start();
    hook.answer = () => ({ status: 500 });
  });
  after(async () => {
    await hook.close();
    await service?.close();
    await cleanUp(names);
  });

  it('when every attempt has failed for longer than WEBHOOK_DISABLE_AFTER_MS, then the endpoint is disabled with a reason and its delivery fails', async () => {
    const alice = operator();
    const endpoint = await registerEndpoint(service.url, alice, hook.url);
    await service.broker.publish(statusChanged(alice.operator_uuid!));
    const disabled = await waitFor(async () => {
      const shown = (await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}`)).body.data;
      return shown.enabled === false ? shown : undefined;
    });
    expect(disabled.disabled_reason).to.match(/^Every delivery failed for/);
    const delivery = await waitFor(async () => {
      const page = (await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).body;
      return page.data[0]?.status === 'failed' ? page.data[0] : undefined;
    });
    expect(delivery.attempts.at(-1).error).to.match(/Not sent: the endpoint is disabled/);
    const sent = hook.requests.length;
    await sleep(300);
    expect(hook.requests.length).to.equal(sent);
  });

  it('when a success comes between failures, then the failing streak starts again', async () => {
    const alice = operator();
    const flaky = await new Receiver().start();
    try {
      flaky.answer = (_request, index) => (index % 2 === 1 ? { status: 200 } : { status: 500 });
      const endpoint = await registerEndpoint(service.url, alice, flaky.url);
      for (let index = 0; index < 3; index++) {
        await service.broker.publish(statusChanged(alice.operator_uuid!));
        await sleep(250);
      }
      await waitFor(() => flaky.requests.length >= 6, 5000);
      await sleep(100);
      const shown = (await api(service.url, alice, 'GET', `/api/webhooks/${endpoint.id}`)).body.data;
      expect(shown.enabled).to.equal(true);
    } finally {
      await flaky.close();
    }
  });
});
