import { expect } from 'chai';
import { grantOperatorKey, newApiKey, startTestGateway, type TestGateway } from '../support/gateway.js';

describe('gateway authentication (X-API-Key)', () => {
  let gateway: TestGateway;

  beforeEach(async () => {
    gateway = await startTestGateway();
  });
  afterEach(() => gateway.closeAll());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gateway.url}${path}`, { headers });

  it('when a route needs a key and none is sent, then 401 Unauthenticated. and no service is called', async () => {
    const response = await get('/api/flight-requests');
    expect(response.status).to.equal(401);
    expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
    expect(gateway.flights.calls).to.have.length(0);
  });

  it('when the key is malformed, then 401 without asking the operator-service', async () => {
    for (const key of ['nope', 'dfc_123_abc', `dfc_${'g'.repeat(16)}_${'a'.repeat(43)}`, `${newApiKey().key}x`]) {
      const response = await get('/api/flight-requests', { 'X-API-Key': key });
      expect(response.status, key).to.equal(401);
    }
    expect(gateway.verifyCalls()).to.equal(0);
  });

  it('when the key is well formed but unknown, then 401 Unauthenticated.', async () => {
    const response = await get('/api/flight-requests', { 'X-API-Key': newApiKey().key });
    expect(response.status).to.equal(401);
    expect(await response.json()).to.deep.equal({ message: 'Unauthenticated.' });
    expect(gateway.verifyCalls()).to.equal(1);
  });

  it('when a valid key is used repeatedly, then it is verified once and the service gets its principal', async () => {
    const { key, principal } = grantOperatorKey(gateway);
    for (let i = 0; i < 5; i += 1) expect((await get('/api/flight-requests', { 'X-API-Key': key })).status).to.equal(200);
    expect(gateway.verifyCalls()).to.equal(1);
    const token = String(gateway.flights.calls.at(-1)?.headers['x-internal-token']);
    expect(await gateway.verifier.verify(token)).to.deep.equal(principal);
  });

  it('when a valid key is used in parallel for the first time, then it is verified once', async () => {
    const { key } = grantOperatorKey(gateway);
    const statuses = await Promise.all(Array.from({ length: 10 }, () => get('/api/zones', { 'X-API-Key': key }).then((r) => r.status)));
    expect(statuses.every((status) => status === 200)).to.equal(true);
    expect(gateway.verifyCalls()).to.equal(1);
  });

  it('when the operator-service verifies a key, then it receives a system token and never a client header', async () => {
    const { key } = grantOperatorKey(gateway);
    await get('/api/zones', { 'X-API-Key': key });
    const verification = gateway.operators.calls.find((call) => call.url === '/internal/api-keys/verify');
    expect(await gateway.verifier.verify(String(verification?.headers['x-internal-token']))).to.deep.equal({ sub: 'gateway', role: 'system' });
    expect(JSON.parse(verification?.body ?? '{}')).to.deep.equal({ key });
  });

  it('when the cache TTL has passed, then the key is verified again', async () => {
    const shortLived = await startTestGateway({ keyCacheTtlMs: 50 });
    const { key } = grantOperatorKey(shortLived);
    await fetch(`${shortLived.url}/api/zones`, { headers: { 'X-API-Key': key } });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await fetch(`${shortLived.url}/api/zones`, { headers: { 'X-API-Key': key } });
    expect(shortLived.verifyCalls()).to.equal(2);
    await shortLived.closeAll();
  });

  it("when the operator-service takes longer than the verification timeout, then 503 at that timeout, not the upstreams' longer one", async () => {
    const patient = await startTestGateway({ timeoutMs: 20_000 });
    patient.operators.handler = () => undefined;
    const started = Date.now();
    const response = await fetch(`${patient.url}/api/zones`, { headers: { 'X-API-Key': newApiKey().key } });
    expect(response.status).to.equal(503);
    expect(Date.now() - started).to.be.within(2_000, 10_000);
    await patient.closeAll();
  });

  it('when the operator-service is down, then a key cannot be verified: 503', async () => {
    await gateway.operators.close();
    const response = await get('/api/flight-requests', { 'X-API-Key': newApiKey().key });
    expect(response.status).to.equal(503);
    expect(await response.json()).to.deep.equal({ message: 'Service Unavailable.' });
  });

  describe('public routes', () => {
    it('when POST /api/operators comes without a key, then the service gets an anonymous token', async () => {
      const response = await fetch(`${gateway.url}/api/operators`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).to.equal(200);
      const token = String(gateway.operators.calls[0]?.headers['x-internal-token']);
      expect(await gateway.verifier.verify(token)).to.deep.equal({ sub: 'anonymous', role: 'anonymous' });
    });

    it('when key issuance comes with HTTP Basic and no key, then Authorization reaches the service', async () => {
      const basic = `Basic ${Buffer.from('ops@example.com:correct horse').toString('base64')}`;
      const response = await fetch(`${gateway.url}/api/v1/operators/abc/api-keys`, { method: 'POST', headers: { authorization: basic } });
      expect(response.status).to.equal(200);
      expect(gateway.operators.calls[0]?.url).to.equal('/api/operators/abc/api-keys');
      expect(gateway.operators.calls[0]?.headers['authorization']).to.equal(basic);
    });

    it('when a public route is called with an unknown key, then 401 all the same', async () => {
      const response = await fetch(`${gateway.url}/api/operators`, { method: 'POST', headers: { 'X-API-Key': newApiKey().key } });
      expect(response.status).to.equal(401);
    });

    it('when GET /api/operators/{uuid} comes without a key, then 401 (only registration and keys are public)', async () => {
      expect((await get('/api/operators/abc')).status).to.equal(401);
    });
  });
});
