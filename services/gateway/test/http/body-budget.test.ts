import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
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
    // Room for one declared 1 MiB body (its bytes and its text), not for two.
    gateway = await startTestGateway({ bodyBudgetBytes: 4 * MIB });
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
    it('when a second body does not fit beside the first, then 503 with Retry-After, and it fits once the first is gone', async () => {
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

  describe('POST /api/flight-requests with a body whose parse would cost more than the whole budget', () => {
    it('when 300 KiB of empty objects arrive, then 413 before they are parsed, and no service is called', async () => {
      const calls = gateway.flights.calls.length;
      const response = await fetch(`${gateway.url}/api/flight-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: `{"a":[${Array.from({ length: 100_000 }, () => '{}').join(',')}]}`,
      });
      expect(response.status).to.equal(413);
      expect(await response.json()).to.deep.equal({ message: 'Request body is too large to be read by this server.' });
      expect(gateway.flights.calls).to.have.length(calls);
    });
  });
});
