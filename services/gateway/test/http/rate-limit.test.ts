import { expect } from 'chai';
import { grantOperatorKey, startTestGateway, type TestGateway } from '../support/gateway.js';

describe('gateway rate limits', () => {
  let gateway: TestGateway;

  beforeEach(async () => {
    gateway = await startTestGateway({ rateLimits: { perKeyPerMinute: 3, publicPerIpPerMinute: 2 } });
  });
  afterEach(() => gateway.closeAll());

  const register = () => fetch(`${gateway.url}/api/operators`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('when a key calls within its limit, then X-RateLimit-Limit and X-RateLimit-Remaining count down', async () => {
    const { key } = grantOperatorKey(gateway);
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } });
      expect(response.status).to.equal(200);
      expect(response.headers.get('x-ratelimit-limit')).to.equal('3');
      remaining.push(response.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).to.deep.equal(['2', '1', '0']);
  });

  it('when a key goes over its limit, then 429 Too Many Attempts. with Retry-After and the service is not called', async () => {
    const { key } = grantOperatorKey(gateway);
    for (let i = 0; i < 3; i += 1) await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } });
    const response = await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } });
    expect(response.status).to.equal(429);
    expect(await response.json()).to.deep.equal({ message: 'Too Many Attempts.' });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    expect(response.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(response.headers.get('x-request-id')).to.be.a('string');
    expect(gateway.flights.calls).to.have.length(3);
  });

  it('when one key is exhausted, then another key is not affected', async () => {
    const first = grantOperatorKey(gateway).key;
    const second = grantOperatorKey(gateway, '1b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d').key;
    for (let i = 0; i < 4; i += 1) await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': first } });
    expect((await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': second } })).status).to.equal(200);
  });

  it('when one IP registers over its limit, then 429 with Retry-After', async () => {
    expect((await register()).status).to.equal(200);
    expect((await register()).status).to.equal(200);
    const response = await register();
    expect(response.status).to.equal(429);
    expect(response.headers.get('x-ratelimit-limit')).to.equal('2');
    expect(Number(response.headers.get('retry-after'))).to.be.within(1, 60);
    expect(gateway.operators.calls).to.have.length(2);
  });

  it('when one IP used up its registrations, then key issuance from it has its own budget', async () => {
    await register();
    await register();
    expect((await register()).status).to.equal(429);
    const issue = () => fetch(`${gateway.url}/api/operators/abc/api-keys`, { method: 'POST' });
    expect((await issue()).status).to.equal(200);
    expect((await issue()).status).to.equal(200);
    expect((await issue()).status).to.equal(429);
  });

  it('when the gateway trusts its load balancer, then the per-IP limit counts the forwarded client address', async () => {
    const behindBalancer = await startTestGateway({ trustProxy: true, rateLimits: { publicPerIpPerMinute: 1 } });
    const from = (ip: string) =>
      fetch(`${behindBalancer.url}/api/operators`, { method: 'POST', headers: { 'x-forwarded-for': ip } }).then((r) => r.status);
    expect(await from('203.0.113.1')).to.equal(200);
    expect(await from('203.0.113.2')).to.equal(200);
    expect(await from('203.0.113.1')).to.equal(429);
    expect(behindBalancer.operators.calls[0]?.headers['x-forwarded-for']).to.equal('203.0.113.1, 127.0.0.1');
    await behindBalancer.closeAll();
  });

  it('when one IP keeps sending unknown keys, then past the limit its failures get 429 with Retry-After', async () => {
    const guessing = await startTestGateway({ rateLimits: { failedAuthPerIpPerMinute: 3 } });
    const guess = (n: number) => fetch(`${guessing.url}/api/zones`, { headers: { 'X-API-Key': `dfc_${'0'.repeat(15)}${n}_${'x'.repeat(43)}` } });
    const statuses: number[] = [];
    for (let n = 0; n < 4; n += 1) statuses.push((await guess(n)).status);
    expect(statuses).to.deep.equal([401, 401, 401, 429]);
    const refused = await guess(9);
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(await refused.json()).to.deep.equal({ message: 'Too Many Attempts.' });
    expect(guessing.flights.calls).to.have.length(0);
    await guessing.closeAll();
  });

  it('when bad keys from one IP went over the limit, then a valid key from the same IP still works', async () => {
    const guessing = await startTestGateway({ rateLimits: { failedAuthPerIpPerMinute: 2 } });
    const { key } = grantOperatorKey(guessing);
    for (let n = 0; n < 4; n += 1) await fetch(`${guessing.url}/api/zones`, { headers: { 'X-API-Key': 'not-a-key' } });
    expect((await fetch(`${guessing.url}/api/zones`, { headers: { 'X-API-Key': 'not-a-key' } })).status).to.equal(429);
    const valid = await fetch(`${guessing.url}/api/zones`, { headers: { 'X-API-Key': key } });
    expect(valid.status).to.equal(200);
    expect(guessing.flights.calls).to.have.length(1);
    await guessing.closeAll();
  });
});
