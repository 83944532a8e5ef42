import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { STREAMED_BODY_HELD_BYTES } from '../../src/http/request-body.js';
import { grantOperatorKey, startTestGateway, type TestGateway } from '../support/gateway.js';

const MIB = 1024 * 1024;

/** Opens a request that declares `declaredBytes` of body and sends only its headers; the answer, when one comes, is collected. */
function openRequest(url: string, path: string, apiKey: string, declaredBytes: number): { socket: Socket; answer: () => string } {
  const { hostname, port } = new URL(url);
  let answer = '';
  const socket = connect(Number(port), hostname, () =>
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${declaredBytes}\r\n\r\n{"name":`,
    ),
  );
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => undefined);
  return { socket, answer: () => answer };
}

function statusOf(raw: string): number {
  return Number(raw.split('\r\n')[0]?.split(' ')[1]);
}

describe('gateway: bodies in flight', () => {
  let gateway: TestGateway;
  let apiKey: string;

  before(async () => {
    // Room for one body streamed through at a time, not for two.
    gateway = await startTestGateway({ bodyBudgetBytes: STREAMED_BODY_HELD_BYTES });
    apiKey = grantOperatorKey(gateway).key;
  });
  after(() => gateway.closeAll());

  describe('POST /api/zones/import with an operator key and 3 MiB declared', () => {
    it('when only the headers have arrived, then 403 at once, nothing read and no service called', async () => {
      const request = openRequest(gateway.url, '/api/zones/import', apiKey, 3 * MIB);
      try {
        await waitFor(() => request.answer().includes('\r\n\r\n'), 2_000);
        expect(statusOf(request.answer())).to.equal(403);
        expect(gateway.flights.calls).to.have.length(0);
      } finally {
        request.socket.destroy();
      }
    });
  });

  describe('POST /api/flight-requests while another body holds the budget', () => {
    it('when a second body does not fit beside the first, then 503 with Retry-After before it reaches the service, and it fits once the first is gone', async () => {
      const first = openRequest(gateway.url, '/api/flight-requests', apiKey, MIB);
      try {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const refused = await fetch(`${gateway.url}/api/flight-requests`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ purpose: 'x'.repeat(600 * 1024) }),
        });
        expect(refused.status).to.equal(503);
        expect(refused.headers.get('retry-after')).to.equal('1');
        expect(await refused.json()).to.deep.equal({ message: 'Too many request bodies are being read; try again shortly.' });
        expect(gateway.flights.calls).to.have.length(0);
      } finally {
        first.socket.destroy();
      }
      await waitFor(async () => {
        const accepted = await fetch(`${gateway.url}/api/flight-requests`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ purpose: 'x'.repeat(600 * 1024) }),
        });
        return accepted.status === 200;
      }, 2_000);
    });
  });

  describe('POST /api/flight-requests with a body of empty objects, the costliest to parse', () => {
    it('when it is streamed through, then it needs no more of the budget than any body, and the service gets it byte for byte', async () => {
      const calls = gateway.flights.calls.length;
      const body = `{"a":[${Array.from({ length: 300_000 }, () => '{}').join(',')}]}`;
      const response = await fetch(`${gateway.url}/api/flight-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body,
      });
      expect(response.status).to.equal(200);
      expect(gateway.flights.calls).to.have.length(calls + 1);
      expect(gateway.flights.calls.at(-1)?.body).to.equal(body);
    });
  });
});
