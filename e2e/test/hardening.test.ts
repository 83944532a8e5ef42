import { request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import {
  buildOpenApiDocument,
  cancelFlightRequestExample,
  issueOperatorApiKeyExample,
  registerOperatorExample,
  submitFlightRequestExample,
} from '@dfc/contracts';
import { InternalTokenSigner } from '@dfc/kit/http';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

/** Issue 11 through the real system: hostile input gets documented answers, nothing is silently ignored. */
describe('hostile clients and one style, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;

  before(async () => {
    system = await startSystem({ env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000', REQUEST_TIMEOUT_MS: '1000' } });
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
  });
  after(() => system?.stop());

  /** fetch refuses TRACE and friends; node:http sends any method Node knows. */
  const sendWithMethod = (method: string, path: string, key: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const outgoing = request(`${system.gatewayUrl}${path}`, { method, headers: { 'x-api-key': key } }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += String(chunk)));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });

  describe('methods the routes do not have', () => {
    it('when TRACE, PROPFIND, PURGE, LOCK or SEARCH is sent to /api/flight-requests with a valid key, then 405 with Allow', async () => {
      for (const method of ['TRACE', 'PROPFIND', 'PURGE', 'LOCK', 'SEARCH', 'PUT']) {
        const answer = await sendWithMethod(method, '/api/flight-requests', operator.key);
        expect(answer.status, method).to.equal(405);
        expect(answer.headers['allow'], method).to.equal('POST, HEAD, GET, OPTIONS');
        expect(JSON.parse(answer.body), method).to.deep.equal({ message: 'Method Not Allowed.' });
        expect(answer.headers['x-request-id'], method).to.be.a('string');
      }
    });

    it('when a method unknown to HTTP is sent, then a JSON 501', async () => {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(system.gatewayUrl).port), '127.0.0.1', () =>
          socket.write('BREW /api/flight-requests HTTP/1.1\r\nHost: x\r\n\r\n'),
        );
        let answer = '';
        socket.on('data', (chunk) => (answer += String(chunk)));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
      expect(raw).to.match(/^HTTP\/1\.1 501 /);
      expect(raw).to.match(/X-Request-Id: \S+/);
      expect(raw.split('\r\n\r\n')[1]).to.equal('{"message":"Not Implemented."}');
    });
  });

  describe('bodies', () => {
    it('when POST /api/operators carries JSON nested 5,000 levels deep, then 400 in the documented shape', async () => {
      const response = await fetch(`${system.gatewayUrl}/api/operators`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"company_name":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      });
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ message: 'Request body nests deeper than 64 levels.' });
    });

    it('when a service is sent deep JSON directly, then it refuses it the same way before parsing', async () => {
      // A service knows its caller before it reads a body: the token comes first, as the gateway sends it.
      const token = await new InternalTokenSigner(system.privateKeyPem).sign({ sub: 'anonymous', role: 'anonymous' });
      const response = await fetch(`${system.url('operator-service')}/api/operators`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-token': token },
        body: `{"a":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
      });
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ message: 'Request body nests deeper than 64 levels.' });
    });

    it('when a body stops short of its Content-Length, then a JSON 408 within the configured timeout', async () => {
      const started = Date.now();
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(system.gatewayUrl).port), '127.0.0.1', () =>
          socket.write(
            `POST /api/flight-requests HTTP/1.1\r\nHost: 127.0.0.1:${new URL(system.gatewayUrl).port}\r\nX-API-Key: ${operator.key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"operator_uuid":`,
          ),
        );
        let answer = '';
        socket.on('data', (chunk) => (answer += String(chunk)));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
      expect(raw).to.match(/^HTTP\/1\.1 408 /);
      // Header names are case-insensitive: the 408 may be the service's, which the gateway streamed the body to.
      expect(raw).to.match(/X-Request-Id: \S+/i);
      expect(raw.split('\r\n\r\n')[1]).to.equal('{"message":"The request was not received in time."}');
      expect(Date.now() - started).to.be.below(5_000);
    });

    it('when headers are too large, then a JSON 431 with X-Request-Id', async () => {
      const response = await fetch(`${system.gatewayUrl}/api/flight-requests`, { headers: { 'x-padding': 'a'.repeat(20_000) } });
      expect(response.status).to.equal(431);
      expect(response.headers.get('x-request-id')).to.be.a('string');
      expect(await response.json()).to.deep.equal({ message: 'Request header fields are too large.' });
    });
  });

  describe('no silent acceptance', () => {
    it('when the status filter comes as status[], status[$ne] or repeated, or page=1e3, then 422', async () => {
      for (const query of ['status[]=Approved', 'status[$ne]=Approved', 'status=Approved&status=Pending', 'page=1e3', 'per_page=1.5']) {
        const answer = await client.send('GET', `/api/flight-requests?${query}`, { key: operator.key });
        expect(answer.status, query).to.equal(422);
        expect(answer.body.errors, query).to.be.an('object');
        expect(Object.keys(answer.body.errors), query).to.have.length.above(0);
      }
    });

    it('when purpose is blank, start_time null and aircraft_type free text, then each field gets its Laravel answer', async () => {
      const refused = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: flightRequestBody(operator, { purpose: '   ', start_time: null }),
      });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors.purpose).to.deep.equal(['The purpose field is required.']);
      expect(refused.body.errors.start_time).to.deep.equal(['The start time field is required.']);
      const accepted = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: flightRequestBody(operator, { aircraft_type: 'Quadcopter' }, 6.1),
      });
      expect(accepted.status).to.equal(201);
      expect(accepted.body.data).to.include({ aircraft_type: 'Quadcopter', aircraft_category: 'multirotor' });
    });

    it('when a polygon crosses the antimeridian, then 422 says to split it (RFC 7946 §3.1.9)', async () => {
      const crossing = [
        [
          [179.99, -16.5],
          [-179.99, -16.5],
          [-179.99, -16.49],
          [179.99, -16.49],
          [179.99, -16.5],
        ],
      ];
      const answer = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: flightRequestBody(operator, {
          flight_area: {
            type: 'FeatureCollection',
            features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: crossing } }],
          },
        }),
      });
      expect(answer.status).to.equal(422);
      expect(answer.body.errors['flight_area.features.0.geometry.coordinates.0'][0]).to.contain('RFC 7946 section 3.1.9');
    });
  });

  describe('one style everywhere', () => {
    it('when operators, flight requests, zones and webhooks are created, then every Location is the gateway URL under /api/v1', async () => {
      const registered = await client.send('POST', '/api/operators', {
        body: { company_name: 'Location Check', email: `loc-${Date.now()}@example.com`, password: 'long enough pass', phone: '+1 555' },
      });
      const submitted = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, {}, 6.2) });
      const webhook = await client.send('POST', '/api/webhooks', {
        key: operator.key,
        body: { url: 'http://127.0.0.1:9/hooks', events: ['status_change'] },
      });
      const zone = await client.send('POST', '/api/zones', {
        key: system.adminKey,
        body: {
          name: 'Location zone',
          type: 'TEMPORARY',
          restriction: 'CONDITIONAL',
          lower_limit_m: 0,
          upper_limit_m: 100,
          authority: 'NATIONAL',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [7, 50],
                [7.01, 50],
                [7.01, 50.01],
                [7, 50.01],
                [7, 50],
              ],
            ],
          },
        },
      });
      const expected = [
        [registered, `/operators/${registered.body?.data?.uuid}`],
        [submitted, `/flight-requests/${submitted.body?.data?.uuid}`],
        [webhook, `/webhooks/${webhook.body?.data?.id}`],
        [zone, `/zones/${zone.body?.data?.id}`],
      ] as const;
      for (const [answer, path] of expected) {
        expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
        expect(answer.headers.get('location')).to.equal(`${system.gatewayUrl}/api/v1${path}`);
      }
    });

    it('when a list is read, then meta.links is Laravel pager', async () => {
      const answer = await client.send('GET', '/api/flight-requests?per_page=1', { key: operator.key });
      expect(answer.status).to.equal(200);
      const links = answer.body.meta.links as Array<{ url: string | null; label: string; active: boolean }>;
      expect(links[0]).to.deep.equal({ url: null, label: '&laquo; Previous', active: false });
      expect(links[1]).to.include({ label: '1', active: true });
      expect(links.at(-1)?.label).to.equal('Next &raquo;');
    });
  });

  describe('the documented examples', () => {
    it('when the whole-request examples are sent as they stand, then the system accepts each (2xx)', async () => {
      const document = buildOpenApiDocument();
      const example = (path: string, method: string) =>
        (document.paths[path]?.[method] as { requestBody: { content: Record<string, { example: unknown }> } }).requestBody.content['application/json']
          ?.example;
      expect(example('/api/operators', 'post')).to.deep.equal(registerOperatorExample);
      const registered = await client.send('POST', '/api/operators', { body: registerOperatorExample });
      expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
      const basic = Buffer.from(`${registerOperatorExample.email}:${registerOperatorExample.password}`).toString('base64');
      const issued = await client.send('POST', `/api/operators/${registered.body.data.uuid}/api-keys`, {
        body: example('/api/operators/{uuid}/api-keys', 'post') ?? issueOperatorApiKeyExample,
        headers: { authorization: `Basic ${basic}` },
      });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
      const submission = { ...(example('/api/flight-requests', 'post') as object), operator_uuid: registered.body.data.uuid };
      expect(submission).to.deep.include({ aircraft_type: submitFlightRequestExample(new Date()).aircraft_type });
      const submitted = await client.send('POST', '/api/flight-requests', { key: issued.body.data.key, body: submission });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(201);
      const amended = await client.send('PATCH', `/api/flight-requests/${submitted.body.data.uuid}`, {
        key: issued.body.data.key,
        body: example('/api/flight-requests/{uuid}', 'patch'),
      });
      expect(amended.status, JSON.stringify(amended.body)).to.equal(200);
      const cancelled = await client.send('DELETE', `/api/flight-requests/${submitted.body.data.uuid}`, {
        key: issued.body.data.key,
        body: example('/api/flight-requests/{uuid}', 'delete') ?? cancelFlightRequestExample,
      });
      expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    });
  });
});
