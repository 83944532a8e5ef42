import { connect } from 'node:net';
import { expect } from 'chai';
import { waitFor } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, type RegisteredOperator } from '../src/client.js';
import { startSystem, type System } from '../src/system.js';

const MIB = 1024 * 1024;

/** Sends headers declaring `declaredBytes` of body, and a few bytes of it; resolves with what was answered before the rest was sent. */
function answerBeforeBody(gatewayUrl: string, path: string, headers: Record<string, string>, declaredBytes: number): Promise<string> {
  const { hostname, port } = new URL(gatewayUrl);
  return new Promise((resolve, reject) => {
    let answer = '';
    const lines = Object.entries({ ...headers, 'content-type': 'application/json', 'content-length': String(declaredBytes) }).map(
      ([name, value]) => `${name}: ${value}\r\n`,
    );
    const socket = connect(Number(port), hostname, () =>
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${lines.join('')}\r\n{"type":`),
    );
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    waitFor(() => answer.includes('\r\n\r\n'), 5_000).then(
      () => {
        socket.destroy();
        resolve(answer);
      },
      (error: unknown) => {
        socket.destroy();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Issue 51 through the real system: what a hostile operator with an ordinary key tried, each answered as documented. */
describe('abuse by an operator with an ordinary key, through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;

  before(async () => {
    system = await startSystem({
      env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' },
      serviceEnv: { 'webhook-service': { WEBHOOK_MAX_ENDPOINTS_PER_OPERATOR: '3' }, gateway: { RATE_LIMIT_FAILED_LOGINS_PER_ACCOUNT: '3' } },
    });
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
  });
  after(() => system?.stop());

  describe('memory per request (POST /api/zones/import)', () => {
    it('when an operator declares a 3 MiB import, then 403 before the body is sent, and both processes stay up', async () => {
      const answer = await answerBeforeBody(system.gatewayUrl, '/api/zones/import', { 'x-api-key': operator.key }, 3 * MIB);
      expect(answer.split('\r\n')[0]).to.equal('HTTP/1.1 403 Forbidden');
      for (const service of ['gateway', 'flight-request-service'] as const)
        expect((await fetch(`${system.url(service)}/healthz`)).status).to.equal(200);
    });
  });

  describe('ids that tell (Idempotency-Key, GET /api/authorisations/{jti})', () => {
    it('when a request is submitted with a guessable key, then its uuid is random, a reordered retry replays it, and its public status says only revoked', async () => {
      const body = flightRequestBody(operator, {}, 5.61);
      const first = await client.send('POST', '/api/flight-requests', { key: operator.key, body, headers: { 'idempotency-key': 'order-42' } });
      expect(first.status).to.equal(201);
      const uuid: string = first.body.data.uuid;
      expect(uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const retry = await client.send('POST', '/api/flight-requests', {
        key: operator.key,
        body: reordered,
        headers: { 'idempotency-key': 'order-42' },
      });
      expect(retry.status).to.equal(201);
      expect(retry.body.data.uuid).to.equal(uuid);

      expect(first.body.data.status).to.equal('Approved');
      expect(
        (await client.send('DELETE', `/api/flight-requests/${uuid}`, { key: operator.key, body: { reason: 'Private reason' } })).status,
      ).to.equal(200);
      const status = await client.send('GET', `/api/v1/authorisations/${uuid}.1`);
      expect(status.body).to.deep.equal({ data: { jti: `${uuid}.1`, status: 'revoked' } });
    });
  });

  describe('no silent ignore (unknown fields on write endpoints)', () => {
    it('when a registration names a field an operator does not have, then 422 naming it, and nothing is registered', async () => {
      const email = `unknown-field-${Date.now()}@example.com`;
      const body = { company_name: 'Extra Fields Ltd', email, password: 'correct horse battery staple', phone: '+31 20 555 0100' };
      const refused = await client.send('POST', '/api/operators', { body: { ...body, role: 'admin' } });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors).to.deep.equal({ role: ['The role field is not a field of an operator.'] });
      expect((await client.send('POST', '/api/operators', { body })).status, 'the email is still free').to.equal(201);
    });

    it('when key issuance names a role, or a webhook PATCH a secret or an operator, then 422 naming each field', async () => {
      const basic = `Basic ${Buffer.from(`${operator.email}:${operator.password}`).toString('base64')}`;
      const issued = await client.send('POST', `/api/operators/${operator.uuid}/api-keys`, {
        body: { name: 'x', role: 'admin' },
        headers: { authorization: basic },
      });
      expect(issued.status).to.equal(422);
      expect(issued.body.errors).to.deep.equal({ role: ['The role field is prohibited.'] });

      const created = await client.send('POST', '/api/webhooks', {
        key: operator.key,
        body: { url: 'https://hooks.example.com/dfc', events: ['status_change'] },
      });
      expect(created.status).to.equal(201);
      const patched = await client.send('PATCH', `/api/webhooks/${created.body.data.id}`, {
        key: operator.key,
        body: { enabled: true, secret: 'whsec_mine', operator_uuid: operator.uuid },
      });
      expect(patched.status).to.equal(422);
      expect(Object.keys(patched.body.errors).sort()).to.deep.equal(['operator_uuid', 'secret']);

      const rotated = await client.send('POST', `/api/webhooks/${created.body.data.id}/rotate-secret`, {
        key: operator.key,
        body: { secret: 'whsec_mine' },
      });
      expect(rotated.status).to.equal(422);
      expect(rotated.body.errors).to.deep.equal({ secret: ['The secret field is prohibited.'] });
    });
  });

  describe('SSRF forms at registration (POST /api/webhooks)', () => {
    it('when the URL names an IPv6 form carrying 169.254.169.254, then 422 on url, whatever the form', async () => {
      for (const host of [
        '[::a9fe:a9fe]',
        '[::ffff:0:a9fe:a9fe]',
        '[2002:a9fe:a9fe::]',
        '[2001:0:4136:e378:8000:63bf:5601:5601]',
        '[64:ff9b:1::a9fe:a9fe]',
      ]) {
        const answer = await client.send('POST', '/api/webhooks', {
          key: operator.key,
          body: { url: `https://${host}/hook`, events: ['status_change'] },
        });
        expect(answer.status, host).to.equal(422);
        expect(answer.body.errors.url, host).to.deep.equal(['The url field must not point to a private, loopback or link-local address.']);
      }
    });
  });

  describe('fan-out and import caps (POST /api/webhooks, POST /api/zones/import)', () => {
    it('when an operator creates one endpoint more than the cap, then 422 naming the cap', async () => {
      const capped = await client.registerOperatorWithKey();
      for (let i = 0; i < 3; i += 1) {
        expect(
          (await client.send('POST', '/api/webhooks', { key: capped.key, body: { url: 'https://hooks.example.com/dfc', events: ['status_change'] } }))
            .status,
        ).to.equal(201);
      }
      const refused = await client.send('POST', '/api/webhooks', {
        key: capped.key,
        body: { url: 'https://hooks.example.com/dfc', events: ['status_change'] },
      });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors.endpoints[0]).to.contain('at most 3 webhook endpoints');
    });

    it('when an admin imports more features than one import may carry, then 422 naming the cap', async () => {
      const features = Array.from({ length: 5001 }, () => ({ type: 'Feature' }));
      const refused = await client.send('POST', '/api/zones/import', { key: system.adminKey, body: { type: 'FeatureCollection', features } });
      expect(refused.status).to.equal(422);
      expect(refused.body.errors).to.deep.equal({ features: ['The features field must not have more than 5000 items.'] });
    });
  });

  describe('a leaked API key (PATCH /api/operators/{uuid}, DELETE /api/operators/{uuid}/api-keys/{id})', () => {
    it('when the key alone changes the login email or revokes a sibling key, then 403; with email and password, then it works', async () => {
      const owner = await client.registerOperatorWithKey();
      const basic = `Basic ${Buffer.from(`${owner.email}:${owner.password}`).toString('base64')}`;
      const stolen = await client.send('PATCH', `/api/operators/${owner.uuid}`, { key: owner.key, body: { email: `thief-${owner.email}` } });
      expect(stolen.status).to.equal(403);
      const sibling = await client.send('POST', `/api/operators/${owner.uuid}/api-keys`, {
        body: { name: 'sibling' },
        headers: { authorization: basic },
      });
      expect((await client.send('DELETE', `/api/operators/${owner.uuid}/api-keys/${sibling.body.data.id}`, { key: owner.key })).status).to.equal(403);
      const changed = await client.send('PATCH', `/api/operators/${owner.uuid}`, {
        key: owner.key,
        body: { phone: '+31 20 555 0199', email: `new-${owner.email}` },
        headers: { authorization: basic },
      });
      expect(changed.status).to.equal(200);
      expect(changed.body.data.email).to.equal(`new-${owner.email}`);
    });
  });

  describe('password guessing (HTTP Basic on POST /api/operators/{uuid}/api-keys)', () => {
    it('when an account gets more wrong passwords than its limit, then even the right one is 429, and its key keeps working', async () => {
      const target = await client.registerOperatorWithKey();
      const login = (password: string) =>
        client.send('POST', `/api/operators/${target.uuid}/api-keys`, {
          body: {},
          headers: { authorization: `Basic ${Buffer.from(`${target.email}:${password}`).toString('base64')}` },
        });
      for (let i = 0; i < 3; i += 1) expect((await login(`guess ${i}`)).status).to.equal(401);
      const refused = await login(target.password);
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      expect((await client.send('GET', `/api/operators/${target.uuid}`, { key: target.key })).status).to.equal(200);
    });
  });

  describe('local hygiene (/metrics)', () => {
    it('when /metrics is asked on the public port, then 404; on the internal listener, then the metrics', async () => {
      expect((await fetch(`${system.gatewayUrl}/metrics`)).status).to.equal(404);
      const metrics = await fetch(system.metricsUrl('gateway'));
      expect(metrics.status).to.equal(200);
      expect(await metrics.text()).to.include('http_request_duration_seconds');
    });
  });
});
