import { request } from 'node:http';
import { expect } from 'chai';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/** Issue 17, trust and privacy, through the gateway: what one client learns of another. */
describe('trust and privacy, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' } });
    client = new GatewayClient(system.gatewayUrl);
  });
  after(() => system?.stop());

  /** fetch will not send another Host; node:http sends what it is given. */
  const sendWithHost = (method: string, path: string, headers: Record<string, string>, body?: unknown, gatewayUrl = system.gatewayUrl) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const outgoing = request(
        `${gatewayUrl}${path}`,
        {
          method,
          headers: {
            ...headers,
            ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }),
          },
        },
        (response) => {
          let answer = '';
          response.on('data', (chunk) => (answer += String(chunk)));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: answer === '' ? undefined : JSON.parse(answer) }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(text);
    });
  const registration = () => ({
    company_name: 'Host Test',
    email: `host-${Math.random().toString(16).slice(2)}@example.com`,
    password: 'correct horse battery staple',
    phone: '+31 20 555 0100',
  });

  describe('the Host header, without a configured public base URL', () => {
    it('POST /api/operators and GET /api/openapi.json: when Host names an address the deployment does not allow, then 400 and nothing is registered', async () => {
      const body = registration();
      for (const host of ['evil.example', 'a"b<c>', `evil.example:${new URL(system.gatewayUrl).port}`]) {
        const registered = await sendWithHost('POST', '/api/operators', { host }, body);
        expect(registered.status, host).to.equal(400);
        expect(registered.body, host).to.deep.equal({ message: 'The Host header names no address this gateway answers for.' });
        expect(registered.headers['location'], host).to.equal(undefined);
        const document = await sendWithHost('GET', '/api/openapi.json', { host });
        expect(document.status, host).to.equal(400);
      }
      // The email is still free: none of the refused calls registered anything.
      expect((await client.send('POST', '/api/operators', { body })).status).to.equal(201);
    });

    it('POST /api/operators and GET /api/openapi.json: when Host is a loopback name on the gateway port, then Location and servers name it', async () => {
      const port = new URL(system.gatewayUrl).port;
      const registered = await sendWithHost('POST', '/api/operators', { host: `localhost:${port}` }, registration());
      expect(registered.status).to.equal(201);
      expect(registered.headers['location']).to.equal(`http://localhost:${port}/api/v1/operators/${registered.body.data.uuid}`);
      const document = await sendWithHost('GET', '/api/openapi.json', { host: `127.0.0.1:${port}` });
      expect(document.body.servers[0].url).to.equal(`http://127.0.0.1:${port}`);
    });

    it('GET /healthz: when a probe reaches the gateway by any address, then it answers (operations are not links)', async () => {
      expect((await sendWithHost('GET', '/healthz', { host: '10.1.2.3:8080' })).status).to.equal(200);
    });
  });

  describe('OPTIONS without a key', () => {
    it('OPTIONS /api/flight-requests: when sent without a key, or with a bad one, then 204 with Allow, and never counted as a failed authentication', async () => {
      for (let i = 0; i < 35; i += 1) {
        const answer = await client.send(
          'OPTIONS',
          '/api/flight-requests',
          i % 2 === 0 ? {} : { key: 'dfc_0000000000000000_not-a-valid-key-at-all-not-a-valid-key-000' },
        );
        expect(answer.status).to.equal(204);
        expect(answer.headers.get('allow')).to.equal('POST, HEAD, GET, OPTIONS');
        expect(answer.headers.get('access-control-allow-origin'), 'CORS is off by default').to.equal(null);
      }
      const item = await client.send('OPTIONS', '/api/v1/flight-requests/9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d');
      expect(item.status).to.equal(204);
      expect(item.headers.get('allow')).to.equal('HEAD, GET, DELETE, PATCH, OPTIONS');
      // 30 failed authentications a minute are allowed before 429: the OPTIONS calls used none of them.
      const unauthenticated = await client.send('GET', '/api/flight-requests');
      expect(unauthenticated.status).to.equal(401);
    });
  });

  describe('deconfliction findings', () => {
    let first: RegisteredOperator;
    let second: RegisteredOperator;
    before(async () => {
      first = await client.registerOperatorWithKey();
      second = await client.registerOperatorWithKey();
    });

    it("POST /api/flight-requests: when another operator's approved flight overlaps, then the finding carries only the shared volume, never that flight or its operator", async () => {
      const window = (({ start_time, end_time }) => ({ start_time, end_time }))(flightRequestBody(first));
      const approved = await client.send('POST', '/api/flight-requests', {
        key: first.key,
        body: flightRequestBody(first, { ...window, max_altitude: 60 }, 6.3),
      });
      expect(approved.status).to.equal(201);
      expect(approved.body.data.status).to.equal('Approved');

      const overlapping = await client.send('POST', '/api/flight-requests', { key: second.key, body: flightRequestBody(second, window, 6.3) });
      expect(overlapping.status).to.equal(201);
      const record = overlapping.body.data;
      expect(record.status).to.equal('Pending');
      const finding = record.review.findings.find((entry: { code: string }) => entry.code === 'DECONFLICTION_OVERLAP');
      const toOffset = (utc: string) => utc.replace(/Z$/, '+00:00');
      expect(finding.conflict).to.deep.include({
        start_time: toOffset(approved.body.data.start_time),
        end_time: toOffset(approved.body.data.end_time),
        lower_altitude_m: 0,
        upper_altitude_m: 60,
      });
      expect(finding.conflict.bbox).to.have.length(4);
      expect(finding.message).to.match(
        /^The flight overlaps an approved flight of another operator from \S+\+00:00 to \S+\+00:00, from 0 m up to 60 m, within \[/,
      );
      expect(finding).not.to.have.property('flight_request_uuid');

      const read = await client.send('GET', `/api/v1/flight-requests/${record.uuid}`, { key: second.key });
      for (const shown of [JSON.stringify(record), JSON.stringify(read.body)]) {
        expect(shown).not.to.contain(approved.body.data.uuid);
        expect(shown).not.to.contain(first.uuid);
      }
    });
  });

  describe('with PUBLIC_BASE_URL and CORS_ALLOWED_ORIGINS configured', () => {
    let configured: System;
    let configuredClient: GatewayClient;
    let operator: RegisteredOperator;
    const base = 'https://api.example.org';
    const console = 'https://console.example.org';
    before(async () => {
      configured = await startSystem({
        env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' },
        serviceEnv: { gateway: { PUBLIC_BASE_URL: base, CORS_ALLOWED_ORIGINS: `${console}, http://127.0.0.1:5173` } },
      });
      configuredClient = new GatewayClient(configured.gatewayUrl);
      operator = await configuredClient.registerOperatorWithKey();
    });
    after(() => configured?.stop());

    const withHost = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      sendWithHost(method, path, headers, body, configured.gatewayUrl);

    it('POST /api/flight-requests, GET /api/flight-requests, GET /api/openapi.json: whatever the Host, Location, links, meta.links and servers name the base URL', async () => {
      const headers = { host: 'evil.example', 'x-api-key': operator.key };
      const created = await withHost('POST', '/api/flight-requests', headers, flightRequestBody(operator, {}, 6.4));
      expect(created.status).to.equal(201);
      expect(created.headers['location']).to.equal(`${base}/api/v1/flight-requests/${created.body.data.uuid}`);
      const list = await withHost('GET', '/api/flight-requests?per_page=1', headers);
      expect(list.status).to.equal(200);
      const urls = [
        list.body.links.first,
        list.body.links.last,
        list.body.meta.path,
        ...list.body.meta.links.map((link: { url: string | null }) => link.url).filter(Boolean),
      ];
      expect(urls).to.have.length.above(3);
      for (const url of urls) expect(url.startsWith(`${base}/api/flight-requests`), url).to.equal(true);
      const document = await withHost('GET', '/api/openapi.json', { host: 'a"b<c>' });
      expect(document.status).to.equal(200);
      expect(document.body.servers.map((server: { url: string }) => server.url)).to.deep.equal([base]);
    });

    it('OPTIONS /api/flight-requests: when a listed origin sends a preflight, then 204 with the CORS headers it needs, without a key', async () => {
      const preflight = await configuredClient.send('OPTIONS', '/api/flight-requests', {
        headers: { origin: console, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(console);
      expect(preflight.headers.get('access-control-allow-methods')).to.contain('POST');
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).to.contain('x-api-key');
      expect(preflight.headers.get('access-control-max-age')).to.equal('600');
    });

    it('GET /api/flight-requests: when a listed origin calls, then its script may read the answer, a 401 included; another origin gets no CORS headers', async () => {
      const allowed = await configuredClient.send('GET', '/api/flight-requests', { key: operator.key, headers: { origin: console } });
      expect(allowed.status).to.equal(200);
      expect(allowed.headers.get('access-control-allow-origin')).to.equal(console);
      expect(allowed.headers.get('access-control-expose-headers')).to.contain('X-Request-Id');
      const refused = await configuredClient.send('GET', '/api/flight-requests', { headers: { origin: console } });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('access-control-allow-origin')).to.equal(console);
      for (const origin of ['https://evil.example', 'https://console.example.org.evil.example', 'null']) {
        const other = await configuredClient.send('GET', '/api/flight-requests', { key: operator.key, headers: { origin } });
        expect(other.status, origin).to.equal(200);
        expect(other.headers.get('access-control-allow-origin'), origin).to.equal(null);
        const otherPreflight = await configuredClient.send('OPTIONS', '/api/flight-requests', {
          headers: { origin, 'access-control-request-method': 'POST' },
        });
        expect(otherPreflight.status, origin).to.equal(204);
        expect(otherPreflight.headers.get('access-control-allow-origin'), origin).to.equal(null);
        expect(otherPreflight.headers.get('allow'), origin).to.equal('POST, HEAD, GET, OPTIONS');
      }
    });
  });
});
