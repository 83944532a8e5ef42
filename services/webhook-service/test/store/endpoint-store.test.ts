import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ENDPOINT_COPY_MAX_AGE_MS, EndpointStore } from '../../src/store/endpoint-store.js';
import { webhookEndpointModel } from '../../src/store/endpoint-model.js';
import {
  cleanUp,
  freshNames,
  monitoredStoreDeps,
  operator,
  registerEndpoint,
  sleep,
  startService,
  type Names,
  type TestService,
} from '../support.js';

describe('EndpointStore', () => {
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

  describe('the copy of an endpoint that attempts work from', () => {
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

  describe('the subscribers of events fanned out at the same moment', () => {
    it('when ten events of one operator ask at once, then each gets its subscribers, another operator gets its own, and they share reads', async () => {
      const cascading = randomUUID();
      const other = randomUUID();
      const mine = [
        await registerEndpoint(running.url, operator(cascading), 'http://127.0.0.1:9/a'),
        await registerEndpoint(running.url, operator(cascading), 'http://127.0.0.1:9/b'),
      ];
      const theirs = await registerEndpoint(running.url, operator(other), 'http://127.0.0.1:9/c');
      await registerEndpoint(running.url, operator(cascading), 'http://127.0.0.1:9/d', ['review_complete']);
      const reads: string[] = [];
      const monitored = await monitoredStoreDeps(running, names, (event) => {
        if (event.commandName === 'find' && event.command['find'] === 'webhook_endpoints')
          reads.push(String((event.command['filter'] as { operator_uuid: string }).operator_uuid));
      });
      try {
        const endpoints = new EndpointStore(webhookEndpointModel(monitored.connection), monitored.relay);
        const ids = (found: readonly { _id: string }[]) => found.map((endpoint) => endpoint._id).sort();
        const [theirsFound, ...mineFound] = await Promise.all([
          endpoints.findSubscribers(other, 'status_change'),
          ...Array.from({ length: 10 }, () => endpoints.findSubscribers(cascading, 'status_change')),
        ]);
        for (const found of mineFound) expect(ids(found)).to.deep.equal(mine.map((endpoint) => endpoint.id).sort());
        expect(ids(theirsFound)).to.deep.equal([theirs.id]);
        expect(reads.filter((uuid) => uuid === cascading).length).to.be.within(1, 2);
        expect(reads.filter((uuid) => uuid === other)).to.have.length(1);
      } finally {
        await monitored.close();
      }
    });
  });
});
