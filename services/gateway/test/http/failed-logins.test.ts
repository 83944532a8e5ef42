import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { json } from '../support/stub-upstream.js';
import { grantOperatorKey, type TestGateway, type TestGatewayOptions } from '../support/gateway.js';
import { limitSharingReplicas } from '../support/limit-replicas.js';

const OPERATOR = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';
const EMAIL = 'owner@skyline.example';
const PASSWORD = 'correct horse battery';
const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

/** The password of every account the stub operator-service knows but the owner's: its own email, reversed. */
const passwordOf = (email: string) => (email === EMAIL ? PASSWORD : [...email].reverse().join(''));

/** Accounts no other test has used: the suite's counters are shared by its tests, as by its replicas. */
const freshAccounts = (...names: string[]) => names.map((name) => `${name}-${randomUUID().slice(0, 8)}@aerial.example`);

/** Plays the operator-service's key issuance: 201 for an account's right email and password, 401 for anything else. */
function answerLogins(gateway: TestGateway): void {
  const echo = gateway.operators.handler;
  gateway.operators.handler = (call, response) => {
    if (!call.url.endsWith('/api-keys')) return echo(call, response);
    const [email = '', password] = Buffer.from(String(call.headers['authorization']).replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
    const right = password === passwordOf(email);
    return right ? json(response, 201, { data: { key: 'issued' } }) : json(response, 401, { message: 'Unauthenticated.' });
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

  /** A replica with the address's count as the test's own limits set it, in the suite's database. */
  async function addressLimited(rateLimits: TestGatewayOptions['rateLimits']): Promise<TestGateway> {
    const gateway = await limitReplica({ trustProxy: true, rateLimits });
    answerLogins(gateway);
    return gateway;
  }

  const loginAs = (gateway: TestGateway, email: string, password: string, forwardedFor: string) =>
    fetch(`${gateway.url}/api/operators/${OPERATOR}/api-keys`, {
      method: 'POST',
      headers: { authorization: basic(email, password), 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: '{}',
    });
  const login = (gateway: TestGateway, password: string, from: string) => loginAs(gateway, EMAIL, password, from);

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

  it('when one address guesses the passwords of several accounts through two replicas, then past its limit its logins are 429 at both, for an account it never tried and with the right password, while another address still logs in', async () => {
    const limits = { failedLoginsPerAccount: 100, failedAuthPerIpPerMinute: 3, publicPerIpPerMinute: 1000 };
    const [first, second] = [await addressLimited(limits), await addressLimited(limits)];
    // Behind the load balancer the client's own X-Forwarded-For comes first and the address the balancer saw last:
    // a new forged entry on every guess names no new client.
    const attacker = (forged: number) => `10.0.0.${forged}, 198.51.100.7`;
    const [fleet = '', survey = '', rescue = '', farm = ''] = freshAccounts('fleet', 'survey', 'rescue', 'farm');
    expect((await loginAs(first, fleet, 'guess 1', attacker(1))).status).to.equal(401);
    expect((await loginAs(second, survey, 'guess 2', attacker(2))).status).to.equal(401);
    expect((await loginAs(first, rescue, 'guess 3', attacker(3))).status).to.equal(401);
    const calls = first.operators.calls.length + second.operators.calls.length;

    for (const [gateway, forged] of [
      [first, 4],
      [second, 5],
    ] as const) {
      const refused = await loginAs(gateway, farm, passwordOf(farm), attacker(forged));
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    }
    expect(first.operators.calls.length + second.operators.calls.length).to.equal(calls);

    expect((await loginAs(second, farm, passwordOf(farm), '10.0.0.4, 203.0.113.9')).status).to.equal(201);
    expect((await loginAs(first, fleet, passwordOf(fleet), '203.0.113.9')).status).to.equal(201);
  });

  it('when the owner logs in between guesses, then the right login is not counted: the guesses up to the limit still reach the operator-service', async () => {
    const [first, second] = [await replica(), await replica()];
    const [owner = ''] = freshAccounts('rescue');
    expect((await loginAs(first, owner, 'guess 1', '192.0.2.101')).status).to.equal(401);
    expect((await loginAs(second, owner, passwordOf(owner), '192.0.2.200')).status).to.equal(201);
    expect((await loginAs(first, owner, passwordOf(owner), '192.0.2.200')).status).to.equal(201);
    expect((await loginAs(second, owner, 'guess 2', '192.0.2.102')).status).to.equal(401);
    expect((await loginAs(first, owner, 'guess 3', '192.0.2.103')).status).to.equal(401);
    expect((await loginAs(second, owner, passwordOf(owner), '192.0.2.200')).status).to.equal(429);
  });

  it('when the database cannot be reached, then each replica counts in memory and still refuses the account', async () => {
    const gateway = await replica('mongodb://127.0.0.1:9/');
    for (let i = 0; i < 3; i += 1) expect((await login(gateway, `guess ${i}`, `198.51.100.${i}`)).status).to.equal(401);
    expect((await login(gateway, PASSWORD, '203.0.113.9')).status).to.equal(429);
  });
});
