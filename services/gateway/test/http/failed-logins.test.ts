import { expect } from 'chai';
import { json } from '../support/stub-upstream.js';
import { grantOperatorKey, type TestGateway } from '../support/gateway.js';
import { limitSharingReplicas } from '../support/limit-replicas.js';

const OPERATOR = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';
const EMAIL = 'owner@skyline.example';
const PASSWORD = 'correct horse battery';
const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

/** Plays the operator-service's key issuance: 201 for the right email and password, 401 for anything else. */
function answerLogins(gateway: TestGateway): void {
  const echo = gateway.operators.handler;
  gateway.operators.handler = (call, response) => {
    if (!call.url.endsWith('/api-keys')) return echo(call, response);
    if (call.headers['authorization'] === basic(EMAIL, PASSWORD)) return json(response, 201, { data: { key: 'issued' } });
    return json(response, 401, { message: 'Unauthenticated.' });
  };
}

describe('gateway: failed HTTP Basic logins, counted across replicas', () => {
  const limitReplica = limitSharingReplicas('gateway_limits');

  /** A replica counting into the suite's database (or `mongoUrl`'s); X-Forwarded-For names the client, as a load balancer would. */
  async function replica(mongoUrl?: string): Promise<TestGateway> {
    const gateway = await limitReplica({
      mongoUrl,
      trustProxy: true,
      rateLimits: { failedLoginsPerAccount: 3, failedAuthPerIpPerMinute: 100, publicPerIpPerMinute: 1000 },
    });
    answerLogins(gateway);
    return gateway;
  }

  const login = (gateway: TestGateway, password: string, from: string) =>
    fetch(`${gateway.url}/api/operators/${OPERATOR}/api-keys`, {
      method: 'POST',
      headers: { authorization: basic(EMAIL, password), 'content-type': 'application/json', 'x-forwarded-for': from },
      body: '{}',
    });

  it('when guesses for one account come from many addresses through two replicas, then the account is refused with 429 at both, its owner’s key keeps working', async () => {
    const [first, second] = [await replica(), await replica()];
    expect((await login(first, 'guess 1', '198.51.100.1')).status).to.equal(401);
    expect((await login(second, 'guess 2', '198.51.100.2')).status).to.equal(401);
    expect((await login(first, 'guess 3', '198.51.100.3')).status).to.equal(401);
    const calls = first.operators.calls.length + second.operators.calls.length;

    for (const gateway of [first, second]) {
      const refused = await login(gateway, PASSWORD, '203.0.113.9');
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 900);
    }
    expect(first.operators.calls.length + second.operators.calls.length).to.equal(calls);

    const { key } = grantOperatorKey(first, OPERATOR);
    const read = await fetch(`${first.url}/api/operators/${OPERATOR}`, { headers: { 'x-api-key': key, 'x-forwarded-for': '198.51.100.1' } });
    expect(read.status).to.equal(200);
  });

  it('when the database cannot be reached, then each replica counts in memory and still refuses the account', async () => {
    const gateway = await replica('mongodb://127.0.0.1:9/');
    for (let i = 0; i < 3; i += 1) expect((await login(gateway, `guess ${i}`, `198.51.100.${i}`)).status).to.equal(401);
    expect((await login(gateway, PASSWORD, '203.0.113.9')).status).to.equal(429);
  });
});
