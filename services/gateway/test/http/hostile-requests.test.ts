import { connect } from 'node:net';
import { expect } from 'chai';
import { grantOperatorKey, startTestGateway, type TestGateway } from '../support/gateway.js';

/** Sends raw bytes and returns what the server answered before it closed the connection. */
function rawExchange(url: string, request: string, closeAfterMs = 5_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    setTimeout(() => socket.destroy(), closeAfterMs).unref();
  });
}

function parseAnswer(raw: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body) };
}

describe('gateway: hostile requests', () => {
  let gateway: TestGateway;
  let apiKey: string;

  before(async () => {
    gateway = await startTestGateway({ serverLimits: { requestTimeoutMs: 600, maxHeaderBytes: 8 * 1024 } });
    apiKey = grantOperatorKey(gateway).key;
  });
  after(() => gateway.closeAll());

  describe('POST /api/operators with JSON nested 5,000 levels deep', () => {
    it('when the body is sent, then the gateway neither scans nor parses it: the service gets it byte for byte and its answer is the client’s', async () => {
      const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      const echo = gateway.operators.handler;
      gateway.operators.handler = (call, response) => {
        if (call.url !== '/api/operators') return echo(call, response);
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: 'Request body nests deeper than 64 levels.' }));
      };
      try {
        const response = await fetch(`${gateway.url}/api/operators`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
        expect(response.status).to.equal(400);
        expect(await response.json()).to.deep.equal({ message: 'Request body nests deeper than 64 levels.' });
        expect(gateway.operators.calls.find((call) => call.url === '/api/operators')?.body).to.equal(deep);
      } finally {
        gateway.operators.handler = echo;
      }
    });
  });

  describe('a body shorter than its Content-Length', () => {
    it('when the rest never arrives, then a JSON 408 with X-Request-Id after the configured timeout', async () => {
      const started = Date.now();
      const raw = await rawExchange(
        gateway.url,
        `POST /api/flight-requests HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
      );
      const answer = parseAnswer(raw);
      expect(answer.status).to.equal(408);
      expect(answer.body).to.deep.equal({ message: 'The request was not received in time.' });
      expect(answer.headers['content-type']).to.match(/^application\/json/);
      expect(answer.headers['x-request-id']).to.match(/^[A-Za-z0-9._:-]+$/);
      expect(Date.now() - started).to.be.below(4_000);
      expect(gateway.flights.calls).to.have.length(0);
    });
  });

  describe('headers over the limit', () => {
    it('when a request carries 16 KiB of headers, then a JSON 431 with X-Request-Id', async () => {
      const raw = await rawExchange(gateway.url, `GET /api/flight-requests HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(16 * 1024)}\r\n\r\n`);
      const answer = parseAnswer(raw);
      expect(answer.status).to.equal(431);
      expect(answer.body).to.deep.equal({ message: 'Request header fields are too large.' });
      expect(answer.headers['x-request-id']).to.match(/^[A-Za-z0-9._:-]+$/);
    });
  });

  describe('GET /api/operators/{uuid}/api-keys with two credentials', () => {
    it('when a valid key comes with an HTTP Basic header, then 401: one credential per request', async () => {
      const before = gateway.operators.calls.length;
      const response = await fetch(`${gateway.url}/api/operators/9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d/api-keys`, {
        headers: { 'x-api-key': apiKey, authorization: `Basic ${Buffer.from('a@b.example:wrong').toString('base64')}` },
      });
      expect(response.status).to.equal(401);
      expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
      expect(gateway.operators.calls.slice(before).filter((call) => call.url.startsWith('/api/'))).to.have.length(0);
    });
  });

  describe('GET /api/operators/{uuid}/api-keys with a key and an empty Authorization header', () => {
    it('when the Authorization header is present but empty, then 401 all the same', async () => {
      const response = await fetch(`${gateway.url}/api/operators/9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d/api-keys`, {
        headers: { 'x-api-key': apiKey, authorization: '' },
      });
      expect(response.status).to.equal(401);
    });
  });

  describe('methods', () => {
    it('when a method Node does not know is sent, then a JSON 501', async () => {
      const answer = parseAnswer(await rawExchange(gateway.url, 'FROBNICATE /api/flight-requests HTTP/1.1\r\nHost: x\r\n\r\n'));
      expect(answer.status).to.equal(501);
      expect(answer.body).to.deep.equal({ message: 'Not Implemented.' });
      expect(answer.headers['x-request-id']).to.be.a('string');
    });

    it('when GET-only documents are called with DELETE or TRACE, then 405 with Allow', async () => {
      for (const method of ['DELETE', 'PROPFIND']) {
        const response = await fetch(`${gateway.url}/api/openapi.json`, { method });
        expect(response.status, method).to.equal(405);
        expect(response.headers.get('allow')).to.equal('HEAD, GET, OPTIONS');
        expect(await response.json()).to.deep.equal({ message: 'Method Not Allowed.' });
      }
    });
  });
});
