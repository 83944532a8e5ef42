import { request, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { grantOperatorKey, newApiKey, startTestGateway, type TestGateway } from '../support/gateway.js';
import { echo, json } from '../support/stub-upstream.js';

/** A call through node:http, which (unlike fetch) sends any header it is given, hop-by-hop ones too. */
function rawCall(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('gateway proxying', () => {
  let gateway: TestGateway;
  let apiKey: string;

  before(async () => {
    gateway = await startTestGateway();
    apiKey = grantOperatorKey(gateway).key;
  });
  after(() => gateway.closeAll());
  beforeEach(() => {
    for (const stub of [gateway.operators, gateway.flights, gateway.webhooks]) stub.calls.length = 0;
  });

  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${gateway.url}${path}`, { ...init, headers: { 'X-API-Key': apiKey, ...init.headers } });

  describe('GET /api/v1/<rest>', () => {
    it('when a versioned path is called, then the service receives it as /api/<rest> with its query', async () => {
      const response = await call('/api/v1/flight-requests/abc?include_geometry=true');
      expect(response.status).to.equal(200);
      expect(gateway.flights.calls.map((received) => received.url)).to.deep.equal(['/api/flight-requests/abc?include_geometry=true']);
    });

    it('when the unversioned path is called, then the service receives the same path', async () => {
      await call('/api/flight-requests/abc?include_geometry=true');
      expect(gateway.flights.calls[0]?.url).to.equal('/api/flight-requests/abc?include_geometry=true');
    });
  });

  describe('routing table', () => {
    it('when each prefix is called, then the owning service receives it', async () => {
      await call('/api/operators/x');
      await call('/api/api-keys');
      await call('/api/zones');
      await call('/api/reviews');
      await call('/api/webhooks');
      expect(gateway.operators.calls.map((received) => received.url)).to.include.members(['/api/operators/x', '/api/api-keys']);
      expect(gateway.flights.calls.map((received) => received.url)).to.deep.equal(['/api/zones', '/api/reviews']);
      expect(gateway.webhooks.calls.map((received) => received.url)).to.deep.equal(['/api/webhooks']);
    });

    it('when an unknown, internal or operations path is called, then 404 Not Found. and no service is called', async () => {
      for (const path of [
        '/api/unknown',
        '/internal/api-keys/verify',
        '/api/v1/internal/api-keys/verify',
        '/api/operators/../../internal/api-keys/verify',
        '/api',
      ]) {
        const response = await call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(response.status, path).to.equal(404);
        expect(await response.json()).to.deep.equal({ message: 'Not Found.' });
      }
      expect(gateway.operators.calls).to.have.length(0);
    });
  });

  describe('GET /metrics', () => {
    it('when asked on the public port, then 404: the metrics are on the internal listener alone', async () => {
      const response = await fetch(`${gateway.url}/metrics`);
      expect(response.status).to.equal(404);
      expect(await response.json()).to.deep.equal({ message: 'Not Found.' });
    });

    it('when calls were proxied, then the latency histogram labels them by table prefix, not by raw path', async () => {
      await call('/api/zones/9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d');
      const metrics = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
      expect(metrics).to.match(/http_request_duration_seconds_count\{[^}]*route="\/api\/zones\/\*"[^}]*status="200"/);
      expect(metrics).to.not.include('9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d');
    });
  });

  describe('headers sent upstream', () => {
    it('when a call is proxied, then the service gets the internal token, request id and forwarded headers, never the API key', async () => {
      await call('/api/operators/x', { headers: { 'X-Request-Id': 'trace-123', 'X-Internal-Token': 'forged', Authorization: 'Basic abc' } });
      const received = gateway.operators.calls.find((c) => c.url === '/api/operators/x');
      expect(received?.headers['x-api-key']).to.equal(undefined);
      expect(received?.headers['x-request-id']).to.equal('trace-123');
      expect(received?.headers['authorization']).to.equal('Basic abc');
      expect(received?.headers['x-forwarded-for']).to.equal('127.0.0.1');
      expect(received?.headers['x-forwarded-proto']).to.equal('http');
      expect(received?.headers['x-forwarded-host']).to.equal(new URL(gateway.url).host);
      const principal = await gateway.verifier.verify(String(received?.headers['x-internal-token']));
      expect(principal.role).to.equal('operator');
    });

    it('when the client sends its own X-Forwarded-For and the gateway does not trust proxies, then it is replaced', async () => {
      await call('/api/operators/x', { headers: { 'X-Forwarded-For': '6.6.6.6', 'X-Forwarded-Host': 'evil.example' } });
      const received = gateway.operators.calls.find((c) => c.url === '/api/operators/x');
      expect(received?.headers['x-forwarded-for']).to.equal('127.0.0.1');
      expect(received?.headers['x-forwarded-host']).to.equal(new URL(gateway.url).host);
    });

    it('when the client sends hop-by-hop headers and a chunked body with Expect, then the service gets the body as sent and none of them', async () => {
      const body = '{"url":"https://x"}';
      const answer = await rawCall(
        `${gateway.url}/api/webhooks`,
        'POST',
        {
          'x-api-key': apiKey,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          connection: 'keep-alive, x-hop-note',
          'keep-alive': 'timeout=5',
          'x-hop-note': 'for the gateway only',
          upgrade: 'h2c',
          te: 'trailers',
          expect: '100-continue',
          'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
        },
        body,
      );
      expect(answer.status).to.equal(200);
      const received = gateway.webhooks.calls[0];
      expect(received?.body).to.equal(body);
      for (const name of ['keep-alive', 'x-hop-note', 'upgrade', 'te', 'expect', 'proxy-authorization', 'x-api-key']) {
        expect(received?.headers[name], name).to.equal(undefined);
      }
      expect(received?.headers['host']).to.equal(new URL(gateway.webhooks.url).host);
    });

    it('when a GET carries Connection: keep-alive and Keep-Alive, then it is proxied as any other', async () => {
      const answer = await rawCall(`${gateway.url}/api/operators/x`, 'GET', {
        'x-api-key': apiKey,
        connection: 'keep-alive',
        'keep-alive': 'timeout=5, max=100',
      });
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.body)).to.deep.equal({ data: { method: 'GET', url: '/api/operators/x', body: '' } });
      expect(gateway.operators.calls.find((c) => c.url === '/api/operators/x')?.headers['keep-alive']).to.equal(undefined);
    });

    it('when the client sends no request id, then the gateway makes one, answers with it and passes it on', async () => {
      const response = await call('/api/zones');
      const requestId = response.headers.get('x-request-id');
      expect(requestId).to.match(/^[0-9a-f-]{36}$/);
      expect(gateway.flights.calls[0]?.headers['x-request-id']).to.equal(requestId);
    });
  });

  describe('the service answer', () => {
    it('when the service answers, then status, headers and body reach the client unchanged', async () => {
      gateway.webhooks.handler = (_call, response) => {
        response.writeHead(201, { 'content-type': 'application/json', location: '/api/webhooks/7' });
        response.end('{"data":{"id":"7"}}');
      };
      const response = await call('/api/webhooks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"url":"https://x"}' });
      expect(response.status).to.equal(201);
      expect(response.headers.get('location')).to.equal('/api/webhooks/7');
      expect(await response.json()).to.deep.equal({ data: { id: '7' } });
      expect(gateway.webhooks.calls[0]?.body).to.equal('{"url":"https://x"}');
    });

    it('when the service answers 204, then the client gets 204 with no body', async () => {
      gateway.webhooks.handler = (_call, response) => {
        response.writeHead(204);
        response.end();
      };
      const response = await call('/api/webhooks/7', { method: 'DELETE' });
      expect(response.status).to.equal(204);
      expect(await response.text()).to.equal('');
    });

    it('when the service answers with hop-by-hop headers, then the client gets the answer without them', async () => {
      gateway.webhooks.handler = (_call, response) => {
        response.writeHead(200, {
          'content-type': 'application/json',
          connection: 'keep-alive, x-hop-answer',
          'keep-alive': 'timeout=99',
          'x-hop-answer': 'for the gateway only',
          'proxy-authenticate': 'Basic',
          'x-end-to-end': 'kept',
        });
        response.end('{"data":[]}');
      };
      const response = await call('/api/webhooks');
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ data: [] });
      expect(response.headers.get('x-end-to-end')).to.equal('kept');
      expect(response.headers.get('x-hop-answer')).to.equal(null);
      expect(response.headers.get('proxy-authenticate')).to.equal(null);
      expect(response.headers.get('keep-alive')).to.not.equal('timeout=99');
    });

    it('when a HEAD is answered with a length, then the client gets the status and headers and no body', async () => {
      gateway.webhooks.handler = (_call, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '11', etag: '"v1"' });
        response.end();
      };
      const answer = await rawCall(`${gateway.url}/api/webhooks`, 'HEAD', { 'x-api-key': apiKey });
      expect(answer.status).to.equal(200);
      expect(answer.headers['etag']).to.equal('"v1"');
      expect(answer.headers['content-length']).to.equal('11');
      expect(answer.body).to.equal('');
      expect(gateway.webhooks.calls[0]?.method).to.equal('HEAD');
    });

    it('when the service answers 304, then the client gets 304 with its headers and no body', async () => {
      gateway.webhooks.handler = (_call, response) => {
        response.writeHead(304, { etag: '"v1"' });
        response.end();
      };
      const response = await call('/api/webhooks', { headers: { 'if-none-match': '"v1"' } });
      expect(response.status).to.equal(304);
      expect(response.headers.get('etag')).to.equal('"v1"');
      expect(await response.text()).to.equal('');
      expect(gateway.webhooks.calls[0]?.headers['if-none-match']).to.equal('"v1"');
    });

    it('when the service answers 405 or 422, then those are passed on as they are', async () => {
      gateway.webhooks.handler = (received, response) =>
        received.method === 'PUT'
          ? json(response, 405, { message: 'Method Not Allowed.' })
          : json(response, 422, { message: 'The url field is required.', errors: { url: ['The url field is required.'] } });
      const put = await call('/api/webhooks', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(put.status).to.equal(405);
      const post = await call('/api/webhooks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(post.status).to.equal(422);
      expect(await post.json()).to.have.nested.property('errors.url');
    });
  });

  describe('body rules', () => {
    it('when the body is not JSON, then 415 and the service is not called', async () => {
      const response = await call('/api/flight-requests', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(response.status).to.equal(415);
      expect(await response.json()).to.have.property('message');
      expect(gateway.flights.calls).to.have.length(0);
    });

    it('when the JSON is malformed, then the gateway does not parse it: the service gets it byte for byte, with the client’s Content-Type, and its answer is the client’s', async () => {
      gateway.flights.handler = (_call, response) => json(response, 400, { message: 'Malformed JSON body.' });
      try {
        const body = '{"purpose": "inspection", "max_altitude":';
        const response = await call('/api/flight-requests', { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body });
        expect(response.status).to.equal(400);
        expect(await response.json()).to.deep.equal({ message: 'Malformed JSON body.' });
        expect(gateway.flights.calls[0]?.body).to.equal(body);
        expect(gateway.flights.calls[0]?.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(gateway.flights.calls[0]?.headers['content-length']).to.equal(String(body.length));
      } finally {
        gateway.flights.handler = echo;
      }
    });

    it('when the body is over 1 MiB, then 413 and the service is not called', async () => {
      const body = JSON.stringify({ purpose: 'x'.repeat(1024 * 1024) });
      const response = await call('/api/flight-requests', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status).to.equal(413);
      expect(gateway.flights.calls).to.have.length(0);
    });

    it('when a body over 1 MiB is streamed without a length, then 413 once it passes the limit, and the service never gets it whole', async () => {
      const chunk = new TextEncoder().encode(' '.repeat(256 * 1024));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 5; i += 1) controller.enqueue(chunk);
          controller.close();
        },
      });
      const response = await call('/api/flight-requests', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      });
      expect(response.status).to.equal(413);
      expect(response.headers.get('connection')).to.equal('close');
      expect(gateway.flights.calls).to.have.length(0);
    });

    it('when an admin’s zone import is between 1 and 16 MiB, then it is passed on', async () => {
      const { key, keyId } = newApiKey();
      gateway.validKeys.set(key, { sub: 'admin', role: 'admin', key_id: keyId });
      const body = JSON.stringify({ type: 'FeatureCollection', features: [], padding: 'x'.repeat(2 * 1024 * 1024) });
      const response = await call('/api/zones/import', { method: 'POST', headers: { 'content-type': 'application/json', 'X-API-Key': key }, body });
      expect(response.status).to.equal(200);
      expect(gateway.flights.calls[0]?.body).to.have.length(body.length);
    });

    it('when a DELETE carries a JSON reason, then the service receives it', async () => {
      await call('/api/flight-requests/abc', { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{"reason":"weather"}' });
      expect(gateway.flights.calls[0]?.body).to.equal('{"reason":"weather"}');
      expect(gateway.flights.calls[0]?.headers['content-length']).to.equal(String('{"reason":"weather"}'.length));
    });

    it('when DELETEs with a reason and HEADs follow one another, then they reach the service over one kept-alive connection', async () => {
      for (const uuid of ['abc', 'def']) {
        const cancel = await call(`/api/flight-requests/${uuid}`, {
          method: 'DELETE',
          headers: { 'content-type': 'application/json' },
          body: '{"reason":"weather"}',
        });
        expect(cancel.status).to.equal(200);
        const head = await rawCall(`${gateway.url}/api/flight-requests/${uuid}`, 'HEAD', { 'x-api-key': apiKey });
        expect(head.status).to.equal(200);
      }
      const ports = gateway.flights.calls.map((received) => received.remotePort);
      expect(gateway.flights.calls.map((received) => received.method)).to.deep.equal(['DELETE', 'HEAD', 'DELETE', 'HEAD']);
      expect(new Set(ports).size, `the gateway's ports: ${ports.join(', ')}`).to.equal(1);
    });
  });

  describe('upstream down', () => {
    it('when the service does not answer, then 503 Service Unavailable. with a request id', async () => {
      const down = await startTestGateway();
      const key = grantOperatorKey(down).key;
      await down.flights.close();
      const response = await fetch(`${down.url}/api/flight-requests`, { headers: { 'X-API-Key': key } });
      expect(response.status).to.equal(503);
      expect(await response.json()).to.deep.equal({ message: 'Service Unavailable.' });
      expect(response.headers.get('x-request-id')).to.be.a('string');
      await down.closeAll();
    });

    it('when the service breaks off in the middle of its answer, then 503 rather than a cut body', async () => {
      const broken = await startTestGateway();
      const key = grantOperatorKey(broken).key;
      broken.flights.handler = (_call, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000', location: '/api/flight-requests/1' });
        response.write('{"data":[');
        setTimeout(() => response.socket?.destroy(), 20);
      };
      const response = await fetch(`${broken.url}/api/flight-requests`, { headers: { 'X-API-Key': key } });
      expect(response.status).to.equal(503);
      expect(response.headers.get('location')).to.equal(null);
      expect(await response.json()).to.deep.equal({ message: 'Service Unavailable.' });
      await broken.closeAll();
    });

    it('when the client goes away before the service answers, then the call to the service is given up and counted as 499, not as a 503', async () => {
      const left = await startTestGateway();
      const key = grantOperatorKey(left).key;
      let closedUnanswered = false;
      left.flights.handler = (_call, response) => response.once('close', () => (closedUnanswered = !response.writableFinished));
      const client = new AbortController();
      const pending = fetch(`${left.url}/api/flight-requests`, { headers: { 'X-API-Key': key }, signal: client.signal }).catch(
        (error: Error) => error,
      );
      await waitFor(() => left.flights.calls.length === 1, 2_000);
      client.abort();
      expect(await pending).to.be.instanceOf(Error);
      expect(await waitFor(() => closedUnanswered, 2_000)).to.equal(true);
      const countedAs = async (status: string) =>
        new RegExp(`http_request_duration_seconds_count\\{[^}]*route="/api/flight-requests/\\*"[^}]*status="${status}"`).test(
          await (await fetch(`${left.metricsUrl}/metrics`)).text(),
        );
      expect(await waitFor(() => countedAs('499'), 2_000)).to.equal(true);
      expect(await countedAs('503')).to.equal(false);
      await left.closeAll();
    });

    it('when the service takes longer than the timeout, then 503', async () => {
      const slow = await startTestGateway({ timeoutMs: 200 });
      const key = grantOperatorKey(slow).key;
      slow.flights.handler = (_call, response) => setTimeout(() => json(response, 200, {}), 1_000);
      const response = await fetch(`${slow.url}/api/flight-requests`, { headers: { 'X-API-Key': key } });
      expect(response.status).to.equal(503);
      await slow.closeAll();
    });
  });
});
