import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WebhookSender } from '../../src/sending/http-sender.js';

interface Received {
  rawHeaders: string[];
  body: string;
}

/** A receiver on loopback that records each request and answers as `answer` says. */
async function startReceiver(answer: (response: ServerResponse) => void): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ rawHeaders: request.rawHeaders, body: Buffer.concat(chunks).toString('utf8') });
      answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?source=dfc`, received };
}

/** The values of a header among the request's header lines, whatever the case of its name. */
function valuesOf(rawHeaders: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) values.push(rawHeaders[i + 1]!);
  return values;
}

describe('WebhookSender.post', () => {
  const sender = new WebhookSender({ timeoutMs: 2000, allowLoopbackTargets: true });
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

  afterEach(async () => {
    if (receiver) await new Promise((resolve) => receiver!.server.close(resolve));
    receiver = undefined;
  });
  after(() => sender.close());

  it('when a delivery is posted, then the receiver gets the body and each header once, with Host and the body length in bytes', async () => {
    receiver = await startReceiver((response) => response.writeHead(204).end());
    const body = JSON.stringify({ id: 'e1', data: { note: 'überflug — 40 m' } });
    const result = await sender.post(receiver.url, body, { 'Content-Type': 'application/json', 'X-Webhook-Id': 'e1', 'webhook-id': 'e1' });

    expect(result).to.include({ statusCode: 204, error: null, retryAfter: null });
    const [request] = receiver.received;
    expect(request!.body).to.equal(body);
    const port = new URL(receiver.url).port;
    expect(valuesOf(request!.rawHeaders, 'host')).to.deep.equal([`127.0.0.1:${port}`]);
    expect(valuesOf(request!.rawHeaders, 'content-length')).to.deep.equal([String(Buffer.byteLength(body))]);
    expect(Buffer.byteLength(body)).to.be.greaterThan(body.length);
    expect(valuesOf(request!.rawHeaders, 'content-type')).to.deep.equal(['application/json']);
    expect(valuesOf(request!.rawHeaders, 'x-webhook-id')).to.deep.equal(['e1']);
    expect(valuesOf(request!.rawHeaders, 'webhook-id')).to.deep.equal(['e1']);
    expect(valuesOf(request!.rawHeaders, 'transfer-encoding')).to.deep.equal([]);
  });

  it('when the receiver answers 429 with Retry-After, then the result carries it and the start of the answer', async () => {
    receiver = await startReceiver((response) => response.writeHead(429, { 'retry-after': '7', 'Content-Type': 'text/plain' }).end('slow down'));
    const result = await sender.post(receiver.url, '{}', { 'Content-Type': 'application/json' });
    expect(result).to.include({ statusCode: 429, error: null, retryAfter: '7', responseBody: 'slow down' });
  });

  it('when a header value carries a line break, then nothing is sent and the result names the header', async () => {
    receiver = await startReceiver((response) => response.writeHead(204).end());
    const result = await sender.post(receiver.url, '{}', { 'X-Webhook-Event': 'status_change\r\nX-Injected: 1' });
    expect(result.statusCode).to.equal(null);
    expect(result.error).to.match(/^Invalid request: .*X-Webhook-Event/);
    expect(receiver.received).to.deep.equal([]);
  });

  it('when the URL cannot be requested, then the result is a failure in words and nothing throws', async () => {
    const result = await sender.post('http://', '{}', {});
    expect(result.statusCode).to.equal(null);
    expect(result.error).to.match(/^Invalid request: /);
  });

  describe('targets judged by the registration rule', () => {
    const strict = new WebhookSender({ timeoutMs: 2000, allowLoopbackTargets: false });
    after(() => strict.close());

    it('when the host name resolves to a loopback address and loopback is not allowed, then nothing is sent and the log names the address', async () => {
      receiver = await startReceiver((response) => response.writeHead(204).end());
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      const result = await strict.post(url, '{}', {});
      expect(result.statusCode).to.equal(null);
      expect(result.error).to.match(/^Refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address\.$/);
      expect(receiver.received).to.have.length(0);
    });

    it('when the URL names an IPv6 form carrying the metadata address, then nothing is sent', async () => {
      for (const host of ['[::a9fe:a9fe]', '[::ffff:a9fe:a9fe]', '[2002:a9fe:a9fe::1]', '[64:ff9b::a9fe:a9fe]']) {
        const result = await strict.post(`http://${host}/hook`, '{}', {});
        expect(result.error, host).to.match(/^Refused: the target .* is not a public address\.$/);
      }
    });

    it('when loopback is allowed (development), then a host name resolving to loopback is reached', async () => {
      receiver = await startReceiver((response) => response.writeHead(204).end());
      const result = await sender.post(receiver.url.replace('127.0.0.1', 'localhost'), '{}', {});
      expect(result.statusCode).to.equal(204);
    });
  });
});
