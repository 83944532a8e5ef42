import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { InternalTokenSigner } from '@dfc/kit/http';
import { generateTokenKeys } from '@dfc/kit/testing';
import { startSystem, type System } from '../src/system.js';

/** What the gateway adds to the system: the only public entry, its documents, limits and failure answers. */
describe('the gateway in front of the system', function () {
  this.timeout(120_000);
  let system: System;

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'gateway'],
      serviceEnv: { 'operator-service': { LOG_LEVEL: 'info' } },
    });
  });
  after(() => system?.stop());

  const api = (path: string, init: RequestInit = {}) => fetch(`${system.gatewayUrl}${path}`, init);

  async function registerWithKey(target: System): Promise<{ uuid: string; key: string }> {
    const email = `gw-${randomBytes(4).toString('hex')}@example.com`;
    const registered = await fetch(`${target.gatewayUrl}/api/operators`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ company_name: 'Gateway Tests', email, password: 'long-enough-password', phone: '+1 555 0100' }),
    });
    const { data } = (await registered.json()) as { data: { uuid: string } };
    const issued = await fetch(`${target.gatewayUrl}/api/operators/${data.uuid}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${email}:long-enough-password`).toString('base64')}` },
    });
    const key = (await issued.json()) as { data: { key: string } };
    return { uuid: data.uuid, key: key.data.key };
  }

  describe('X-Request-Id', () => {
    it('when any answer is given (2xx, 401, 404, 503), then it carries X-Request-Id', async () => {
      const responses = [
        await api('/api/openapi.json'),
        await api('/api/flight-requests'),
        await api('/nowhere'),
        await api('/api/flight-requests', { headers: { 'X-API-Key': system.adminKey } }),
      ];
      expect(responses.map((response) => response.status)).to.deep.equal([200, 401, 404, 503]);
      for (const response of responses) expect(response.headers.get('x-request-id')).to.match(/^[A-Za-z0-9._:-]{1,128}$/);
    });

    it('when the client sends one, then it is echoed and the service logs the call under it', async () => {
      const requestId = `e2e-${randomBytes(6).toString('hex')}`;
      const { uuid, key } = await registerWithKey(system);
      const response = await api(`/api/operators/${uuid}`, { headers: { 'X-API-Key': key, 'X-Request-Id': requestId } });
      expect(response.status).to.equal(200);
      expect(response.headers.get('x-request-id')).to.equal(requestId);
      const logged = () =>
        system
          .logs('operator-service')
          .split('\n')
          .some((line) => line.includes(`"request_id":"${requestId}"`));
      for (let i = 0; i < 40 && !logged(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logged()).to.equal(true);
    });
  });

  describe('the internal token', () => {
    const directRead = async (uuid: string, token?: string) =>
      fetch(`${system.url('operator-service')}/api/operators/${uuid}`, { headers: token ? { 'X-Internal-Token': token } : {} });

    it('when a service is called directly without a token, then 401', async () => {
      const { uuid } = await registerWithKey(system);
      const response = await directRead(uuid);
      expect(response.status).to.equal(401);
      expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
    });

    it('when a service is called with a token signed by another key, then 401', async () => {
      const { uuid } = await registerWithKey(system);
      const forged = await new InternalTokenSigner(generateTokenKeys().privateKeyPem).sign({ sub: 'attacker', role: 'admin' });
      expect((await directRead(uuid, forged)).status).to.equal(401);
    });

    it("when a service is called with a token of the gateway's key, then it answers (the check is the token, not the route)", async () => {
      const { uuid } = await registerWithKey(system);
      const genuine = await new InternalTokenSigner(system.privateKeyPem).sign({ sub: 'admin', role: 'admin' });
      expect((await directRead(uuid, genuine)).status).to.equal(200);
    });

    it('when a client sends its own X-Internal-Token through the gateway, then it is ignored', async () => {
      const { uuid } = await registerWithKey(system);
      const genuine = await new InternalTokenSigner(system.privateKeyPem).sign({ sub: 'admin', role: 'admin' });
      const response = await api(`/api/operators/${uuid}`, { headers: { 'X-Internal-Token': genuine } });
      expect(response.status).to.equal(401);
    });
  });

  describe('routes the gateway does not expose', () => {
    it("when a service's internal or operations routes are asked for through the gateway, then 404", async () => {
      const paths = ['/internal/api-keys/verify', '/api/internal/api-keys/verify', '/api/operators/../../internal/api-keys/verify', '/api/unknown'];
      for (const path of paths) {
        const response = await api(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-API-Key': system.adminKey },
          body: '{}',
        });
        expect(response.status, path).to.equal(404);
        expect(await response.json()).to.deep.equal({ message: 'Not Found.' });
      }
    });
  });

  describe('a service that is down', () => {
    it('when the flight-request-service is not running, then its routes answer 503 and the others keep working', async () => {
      const down = await api('/api/flight-requests', { headers: { 'X-API-Key': system.adminKey } });
      expect(down.status).to.equal(503);
      expect(await down.json()).to.deep.equal({ message: 'Service Unavailable.' });
      const { uuid, key } = await registerWithKey(system);
      expect((await api(`/api/operators/${uuid}`, { headers: { 'X-API-Key': key } })).status).to.equal(200);
    });

    it('when the operator-service crashes, then the gateway answers 503 and serves again once it is back', async () => {
      const register = () =>
        api('/api/operators', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            company_name: 'Crash Test',
            email: `crash-${randomBytes(4).toString('hex')}@example.com`,
            password: 'long-enough-password',
            phone: '1',
          }),
        });
      await system.kill('operator-service');
      const down = await register();
      expect(down.status).to.equal(503);
      expect(await down.json()).to.deep.equal({ message: 'Service Unavailable.' });
      expect((await api('/healthz')).status).to.equal(200);
      await system.start('operator-service');
      expect((await register()).status).to.equal(201);
    });
  });

  describe('GET /api/openapi.json and /api/docs', () => {
    it('when the document is fetched, then it is OpenAPI 3.1 with the operator routes', async () => {
      const response = await api('/api/v1/openapi.json');
      expect(response.status).to.equal(200);
      const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(document.openapi).to.equal('3.1.0');
      expect(document.paths).to.include.keys('/api/operators', '/api/operators/{uuid}');
    });

    it('when the docs page is opened, then it is HTML served with its assets by the gateway', async () => {
      const page = await api('/api/docs');
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include('swagger-ui');
      expect((await api('/api/docs/swagger-ui-bundle.js')).status).to.equal(200);
    });
  });

  describe('rate limits', () => {
    let limited: System;
    before(async () => {
      limited = await startSystem({
        services: ['operator-service', 'gateway'],
        env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '3', RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '4' },
      });
    });
    after(() => limited?.stop());

    it('when one client manages keys past the per-IP limit, then 429 with Retry-After (registration has its own budget)', async () => {
      const { uuid } = await registerWithKey(limited); // 1 registration, 1 key issuance
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i += 1) {
        last = await fetch(`${limited.gatewayUrl}/api/operators/${uuid}/api-keys`, { method: 'GET' });
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([401, 401, 401, 429]);
      expect(await last?.json()).to.deep.equal({ message: 'Too Many Attempts.' });
      expect(Number(last?.headers.get('retry-after'))).to.be.within(1, 60);
    });

    it('when one key calls past its limit, then 429 with Retry-After and the rate-limit headers', async () => {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i += 1) {
        last = await fetch(`${limited.gatewayUrl}/api/operators/00000000-0000-4000-8000-000000000000`, {
          headers: { 'X-API-Key': limited.adminKey },
        });
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([404, 404, 404, 429]);
      expect(Number(last?.headers.get('retry-after'))).to.be.within(1, 60);
      expect(last?.headers.get('x-ratelimit-limit')).to.equal('3');
      expect(last?.headers.get('x-ratelimit-remaining')).to.equal('0');
    });
  });
});
