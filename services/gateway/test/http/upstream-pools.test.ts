import type { ServerResponse } from 'node:http';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { grantOperatorKey, startTestGateway, type TestGateway } from '../support/gateway.js';
import { json } from '../support/stub-upstream.js';

describe('gateway: connections to the services', () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.closeAll();
    gateway = undefined;
  });

  describe('GET /api/flight-requests while the service is slow', () => {
    it('when its connection is busy and as many calls wait as may, then the next is 503 with Retry-After at once, and the others are answered', async () => {
      gateway = await startTestGateway({ upstream: { maxSockets: 1, maxWaiting: 1 } });
      const key = grantOperatorKey(gateway).key;
      const held: ServerResponse[] = [];
      gateway.flights.handler = (_call, response) => held.push(response);
      const read = () => fetch(`${gateway!.url}/api/flight-requests`, { headers: { 'X-API-Key': key } });

      const first = read();
      await waitFor(() => held.length === 1, 2_000);
      const second = read();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await read();
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(await refused.json()).to.deep.equal({ message: 'The service is busy; try again shortly.' });
      expect(gateway.flights.calls).to.have.length(1);

      gateway.flights.handler = (_call, response) => json(response, 200, { data: [] });
      json(held[0]!, 200, { data: [] });
      expect((await first).status).to.equal(200);
      expect((await second).status).to.equal(200);
      expect(gateway.flights.calls).to.have.length(2);
    });
  });

  describe('GET /api/zones, one call after another', () => {
    it('when a connection has carried its number of calls, then it is closed and the next call opens another', async () => {
      gateway = await startTestGateway({ upstream: { maxSockets: 1, connectionMaxRequests: 3 } });
      const key = grantOperatorKey(gateway).key;
      for (let i = 0; i < 7; i += 1) expect((await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } })).status).to.equal(200);
      const ports = gateway.flights.calls.map((call) => call.remotePort);
      expect(ports[0]).to.equal(ports[2]);
      expect(ports[3]).to.equal(ports[5]);
      expect(new Set([ports[0], ports[3], ports[6]]).size, `the gateway's ports: ${ports.join(', ')}`).to.equal(3);
    });

    it('when a connection is older than its lifetime, then the next call opens another', async () => {
      gateway = await startTestGateway({ upstream: { maxSockets: 1, connectionTtlMs: 1_000 } });
      const key = grantOperatorKey(gateway).key;
      const read = () => fetch(`${gateway!.url}/api/zones`, { headers: { 'X-API-Key': key } });
      expect((await read()).status).to.equal(200);
      expect((await read()).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect((await read()).status).to.equal(200);
      const ports = gateway.flights.calls.map((call) => call.remotePort);
      expect(ports[0]).to.equal(ports[1]);
      expect(ports[2]).to.not.equal(ports[1]);
    });
  });
});
