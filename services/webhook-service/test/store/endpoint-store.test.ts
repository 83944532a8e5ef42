import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ENDPOINT_COPY_MAX_AGE_MS } from '../../src/store/endpoint-store.js';
import { webhookEndpointModel } from '../../src/store/endpoint-model.js';
import { cleanUp, freshNames, operator, registerEndpoint, sleep, startService, type Names, type TestService } from '../support.js';

describe('EndpointStore: the copy of an endpoint that attempts work from', () => {
  let names: Names;
  let running: TestService;

  before(async () => {
    names = freshNames();
    running = await startService(names);
  });

  after(async () => {
    await running.close();
    await cleanUp(names);
  });

  async function freshEndpoint(): Promise<string> {
    return (await registerEndpoint(running.url, operator(randomUUID()), 'http://127.0.0.1:9/hook')).id;
  }

  it('when the endpoint is changed through this replica, then the next attempt sees the change at once', async () => {
    const endpoints = running.service.deps.endpoints;
    const id = await freshEndpoint();
    expect((await endpoints.findForAttempt(id))?.enabled).to.equal(true);
    await endpoints.change(id, () => ({ set: { enabled: false, disabled_reason: 'test' } }));
    expect((await endpoints.findForAttempt(id))?.enabled).to.equal(false);
  });

  it('when another replica changes the endpoint, then attempts here see it once the copy has aged out', async () => {
    const endpoints = running.service.deps.endpoints;
    const id = await freshEndpoint();
    expect((await endpoints.findForAttempt(id))?.enabled).to.equal(true);
    await webhookEndpointModel(running.connection).updateOne({ _id: id }, { $set: { enabled: false }, $inc: { version: 1 } });
    expect((await endpoints.findForAttempt(id))?.enabled, 'the copy, within its age').to.equal(true);
    await sleep(ENDPOINT_COPY_MAX_AGE_MS + 50);
    expect((await endpoints.findForAttempt(id))?.enabled).to.equal(false);
  });

  it('when the endpoint is deleted, then attempts no longer find it', async () => {
    const endpoints = running.service.deps.endpoints;
    const id = await freshEndpoint();
    expect(await endpoints.findForAttempt(id)).to.not.equal(null);
    expect(await endpoints.remove(id)).to.equal(true);
    expect(await endpoints.findForAttempt(id)).to.equal(null);
  });
});
