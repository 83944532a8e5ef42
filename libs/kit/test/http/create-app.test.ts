import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import { ConflictError } from '@dfc/kit/errors';
import { createMetricsRegistry, createServiceApp, InternalTokenSigner, InternalTokenVerifier, requireRole } from '@dfc/kit/http';
import { createLogger } from '@dfc/kit/logging';
import { bodyValidator } from '@dfc/kit/validation';
import { generateTokenKeys, halfSentBody, listen, type Listening } from '@dfc/kit/testing';

describe('createServiceApp', () => {
  const keys = generateTokenKeys();
  const signer = new InternalTokenSigner(keys.privateKeyPem);
  let service: Listening;
  let token: string;

  before(async () => {
    const router = new Router();
    const validate = bodyValidator(Type.Object({ name: Type.String({ minLength: 1 }) }));
    router.post('/api/things', (ctx) => {
      ctx.status = 201;
      ctx.body = { data: validate(ctx.state.body) };
    });
    router.get('/api/boom', () => {
      throw new Error('database password is hunter2');
    });
    router.get('/api/database-down', () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoServerSelectionError' });
    });
    router.get('/api/list-too-slow', () => {
      throw Object.assign(new Error('Executor error during find command :: caused by :: operation exceeded time limit'), {
        name: 'MongoServerError',
        code: 50,
      });
    });
    router.get('/api/conflict', () => {
      throw new ConflictError('A Rejected flight request cannot be cancelled.');
    });
    router.get('/api/admin-only', requireRole('admin'), (ctx) => {
      ctx.body = { ok: true };
    });
    const app = createServiceApp({
      log: createLogger('test', 'silent'),
      registry: createMetricsRegistry('test'),
      readiness: [{ name: 'always', ready: () => true }],
      verifier: new InternalTokenVerifier(keys.publicKeyPem),
      routers: [router],
      bodyLimitBytes: 1024,
    });
    service = await listen(app);
    token = await signer.sign({ sub: 'op', role: 'operator', operator_uuid: 'op' });
  });

  after(() => service.close());

  const call = (path: string, init: RequestInit = {}, withToken = true) =>
    fetch(`${service.url}${path}`, {
      ...init,
      headers: { ...(withToken ? { 'X-Internal-Token': token } : {}), ...(init.headers as Record<string, string>) },
    });
  const json = { 'Content-Type': 'application/json' };

  it('GET /healthz and /readyz: without a token, then 200', async () => {
    expect((await call('/healthz', {}, false)).status).to.equal(200);
    const ready = await call('/readyz', {}, false);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready', checks: { always: true } });
  });

  it('GET /metrics: then Prometheus text with the HTTP histogram', async () => {
    await call('/api/conflict');
    const text = await (await call('/metrics', {}, false)).text();
    expect(text).to.match(/http_request_duration_seconds_count\{[^}]*route="\/api\/conflict"[^}]*status="409"/);
  });

  it('GET /metrics: when the event loop was blocked since the last scrape, then the lag it reports holds the block', async () => {
    await call('/metrics', {}, false);
    // A scrape resets the monitor, whose next sample is then its reference: let it take one before the block.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const blockedUntil = performance.now() + 300;
    while (performance.now() < blockedUntil); // what a slow synchronous handler does to every other request
    await new Promise((resolve) => setTimeout(resolve, 150));
    const text = await (await call('/metrics', {}, false)).text();
    const maxLag = Number(/^nodejs_eventloop_lag_max_seconds\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    expect(maxLag).to.be.at.least(0.25);
  });

  it('when no internal token is sent, then 401 Unauthenticated.', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{"name":"a"}' }, false);
    expect(response.status).to.equal(401);
    expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
  });

  it('when the token is signed by another key, then 401', async () => {
    const forged = await new InternalTokenSigner(generateTokenKeys().privateKeyPem).sign({ sub: 'x', role: 'admin' });
    const response = await fetch(`${service.url}/api/admin-only`, { headers: { 'X-Internal-Token': forged } });
    expect(response.status).to.equal(401);
  });

  it('when the role does not fit, then 403', async () => {
    expect((await call('/api/admin-only')).status).to.equal(403);
  });

  it('when the body is valid JSON, then the handler gets it', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{"name":"a"}' });
    expect(response.status).to.equal(201);
    expect(await response.json()).to.deep.equal({ data: { name: 'a' } });
  });

  it('when the JSON is malformed, then 400', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{"name":' });
    expect(response.status).to.equal(400);
    expect(await response.json()).to.have.property('message');
  });

  it('when a string in the body holds a NUL character, then 422 names that field and the handler never runs', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{"name":"a\\u0000b"}' });
    expect(response.status).to.equal(422);
    const message = 'The name field must not contain control characters (U+0000 to U+001F; free text may hold tabs and line breaks).';
    expect(await response.json()).to.deep.equal({ message, errors: { name: [message] } });
  });

  it('when a nested string or a key holds a C0 control character or a lone surrogate, then 422 names where', async () => {
    const cases: Array<[string, string, string]> = [
      ['{"area":{"features":[{"properties":{"note":"bell\\u0007"}}]}}', 'area.features.0.properties.note', 'control characters'],
      ['{"area":{"we\\u001bird":1}}', 'area', 'control characters'],
      ['{"name":"half \\ud800 a pair"}', 'name', 'lone surrogate'],
      ['{"name":"\\udfff"}', 'name', 'lone surrogate'],
    ];
    for (const [body, field, words] of cases) {
      const response = await call('/api/things', { method: 'POST', headers: json, body });
      expect(response.status, body).to.equal(422);
      const answer = (await response.json()) as { errors: Record<string, string[]> };
      expect(Object.keys(answer.errors), body).to.deep.equal([field]);
      expect(answer.errors[field]?.[0], body).to.contain(words);
    }
  });

  it('when strings hold tabs, line breaks, escaped quotes and surrogate pairs, then they pass as sent', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{"name":"a\\tb\\nc\\r\\"d\\" \\ud83d\\ude81 \\u00e9"}' });
    expect(response.status).to.equal(201);
    expect(await response.json()).to.deep.equal({ data: { name: 'a\tb\nc\r"d" \u{1F681} é' } });
  });

  it('when the bytes are not UTF-8, then 400 and nothing is replaced', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"ab'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const response = await call('/api/things', { method: 'POST', headers: json, body });
    expect(response.status).to.equal(400);
    expect(await response.json()).to.deep.equal({ message: 'Request body is not valid UTF-8.' });
  });

  it('when a character of several bytes arrives split between two packets, then the handler gets it whole', async () => {
    const { hostname, port } = new URL(service.url);
    const body = Buffer.from('{"name":"caf\u00e9"}');
    const cut = body.indexOf(0xc3) + 1;
    let received = '';
    const socket = connect(Number(port), hostname);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const head = `POST /api/things HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\nx-internal-token: ${token}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`;
    socket.setNoDelay(true);
    socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, cut)]));
    await delay(50);
    socket.end(body.subarray(cut));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(received.split(' ')[1]).to.equal('201');
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).to.deep.equal({ data: { name: 'caf\u00e9' } });
  });

  it('when a client goes away halfway through its body, then the process goes on answering', async () => {
    const half = halfSentBody(service.url, {
      path: '/api/things',
      headers: { 'x-internal-token': token },
      declaredBytes: 100,
      firstBytes: '{"name":"',
    });
    await delay(50);
    half.socket.destroy();
    await delay(50);
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{"name":"after"}' });
    expect(response.status).to.equal(201);
  });

  it('when the Content-Type names a charset other than UTF-8, then 415; utf-8 in any case passes', async () => {
    for (const charset of ['utf-16', 'ISO-8859-1', 'us-ascii']) {
      const response = await call('/api/things', {
        method: 'POST',
        headers: { 'Content-Type': `application/json; charset=${charset}` },
        body: '{"name":"a"}',
      });
      expect(response.status, charset).to.equal(415);
      expect(await response.json(), charset).to.deep.equal({ message: 'Request body must be JSON in UTF-8 (charset=utf-8).' });
    }
    const utf8 = await call('/api/things', { method: 'POST', headers: { 'Content-Type': 'application/json; charset=UTF-8' }, body: '{"name":"a"}' });
    expect(utf8.status).to.equal(201);
  });

  it('when the body is not JSON, then 415', async () => {
    const response = await call('/api/things', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'name=a' });
    expect(response.status).to.equal(415);
  });

  it('when the body is over the limit, then 413', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: JSON.stringify({ name: 'x'.repeat(2000) }) });
    expect(response.status).to.equal(413);
  });

  it('when validation fails, then 422 with message and errors', async () => {
    const response = await call('/api/things', { method: 'POST', headers: json, body: '{}' });
    expect(response.status).to.equal(422);
    expect(await response.json()).to.deep.equal({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
  });

  it('when a handler fails unexpectedly, then 500 tells nothing of internals', async () => {
    const response = await call('/api/boom');
    expect(response.status).to.equal(500);
    expect(await response.text()).to.equal('{"message":"Server Error."}');
  });

  it('when the database cannot be reached, then 503 without internals', async () => {
    const response = await call('/api/database-down');
    expect(response.status).to.equal(503);
    expect(await response.json()).to.deep.equal({ message: 'Service Unavailable.' });
  });

  it('when a list query runs past its maxTimeMS, then 503 with Retry-After, not 500', async () => {
    const response = await call('/api/list-too-slow');
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('1');
    expect(await response.json()).to.deep.equal({ message: 'The list took too long to read; narrow its filters or walk it with cursor.' });
  });

  it('when the method is not routed, then 405 with Allow; when the path is unknown, then 404', async () => {
    for (const method of ['PUT', 'PROPFIND', 'PURGE']) {
      const refused = await call('/api/conflict', { method });
      expect(refused.status, method).to.equal(405);
      expect(refused.headers.get('allow'), method).to.equal('HEAD, GET, OPTIONS');
      expect(await refused.json(), method).to.deep.equal({ message: 'Method Not Allowed.' });
    }
    const options = await call('/api/conflict', { method: 'OPTIONS' });
    expect(options.status).to.equal(204);
    expect(options.headers.get('allow')).to.equal('HEAD, GET, OPTIONS');
    const missing = await call('/api/nothing-here');
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.deep.equal({ message: 'Not Found.' });
  });

  it('when a request id is sent, then it is echoed; when not, then one is made', async () => {
    expect((await call('/api/conflict', { headers: { 'X-Request-Id': 'abc-123' } })).headers.get('x-request-id')).to.equal('abc-123');
    expect((await call('/api/conflict')).headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
