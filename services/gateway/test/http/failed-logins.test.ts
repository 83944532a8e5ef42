import { expect } from 'chai';
import { json } from '../support/stub-upstream.js';
import { grantOperatorKey, type TestGateway, type TestGatewayOptions } from '../support/gateway.js';
import { limitSharingReplicas } from '../support/limit-replicas.js';

const OPERATOR = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';
const EMAIL = 'owner@skyline.example';
const PASSWORD = 'correct horse battery';
const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

/** Accounts the stub operator-service knows, by email, with their passwords. */
const ACCOUNTS = new Map([
  [EMAIL, PASSWORD],
  ...['fleet', 'survey', 'rescue', 'farm'].map((name) => [`${name}@aerial.example`, `${name} password of its own`] as const),
]);

/**
 * Plays the operator-service's key issuance: 201 for an account's right email and password, 401 for anything
 * else, after `delayMs` (a password hash takes its time, and guesses sent at once are all in flight meanwhile).
 */
function answerLogins(gateway: TestGateway, delayMs = 0): void {
  const echo = gateway.operators.handler;
  const rightLogins = new Set([...ACCOUNTS].map(([email, password]) => basic(email, password)));
  gateway.operators.handler = (call, response) => {
    if (!call.url.endsWith('/api-keys')) return echo(call, response);
    const right = rightLogins.has(String(call.headers['authorization']));
    setTimeout(() => (right ? json(response, 201, { data: { key: 'issued' } }) : json(response, 401, { message: 'Unauthenticated.' })), delayMs);
  };
}

const keyIssuances = (...gateways: TestGateway[]) =>
  gateways.reduce((sum, gateway) => sum + gateway.operators.calls.filter((call) => call.url.endsWith('/api-keys')).length, 0);

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
  async function addressLimited(rateLimits: TestGatewayOptions['rateLimits'], delayMs = 0): Promise<TestGateway> {
    const gateway = await limitReplica({ trustProxy: true, rateLimits });
    answerLogins(gateway, delayMs);
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
    const [fleet, survey, rescue, farm] = ['fleet', 'survey', 'rescue', 'farm'].map((name) => `${name}@aerial.example`) as [string, string, string, string];
    expect((await loginAs(first, fleet, 'guess 1', attacker(1))).status).to.equal(401);
    expect((await loginAs(second, survey, 'guess 2', attacker(2))).status).to.equal(401);
    expect((await loginAs(first, rescue, 'guess 3', attacker(3))).status).to.equal(401);
    const calls = first.operators.calls.length + second.operators.calls.length;

    for (const [gateway, forged] of [
      [first, 4],
      [second, 5],
    ] as const) {
      const refused = await loginAs(gateway, farm, ACCOUNTS.get(farm) ?? '', attacker(forged));
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    }
    expect(first.operators.calls.length + second.operators.calls.length).to.equal(calls);

    expect((await loginAs(second, farm, ACCOUNTS.get(farm) ?? '', '10.0.0.4, 203.0.113.9')).status).to.equal(201);
    expect((await loginAs(first, fleet, ACCOUNTS.get(fleet) ?? '', '203.0.113.9')).status).to.equal(201);
  });

  it('when guesses for one account arrive all at once at two replicas, then no more than its limit reach the operator-service, the rest 429', async () => {
    const limits = { failedLoginsPerAccount: 3, failedAuthPerIpPerMinute: 100, publicPerIpPerMinute: 1000 };
    const [first, second] = [await addressLimited(limits, 300), await addressLimited(limits, 300)];
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => loginAs(i % 2 === 0 ? first : second, EMAIL, `guess ${i}`, `198.51.100.${i + 1}`)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).to.deep.equal([...Array<number>(3).fill(401), ...Array<number>(9).fill(429)]);
    expect(keyIssuances(first, second)).to.equal(3);
  });

  it('when one address sends guesses for several accounts all at once, then no more than its limit reach the operator-service, the rest 429', async () => {
    const limits = { failedLoginsPerAccount: 100, failedAuthPerIpPerMinute: 3, publicPerIpPerMinute: 1000 };
    const [first, second] = [await addressLimited(limits, 300), await addressLimited(limits, 300)];
    const emails = [...ACCOUNTS.keys()];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => loginAs(i % 2 === 0 ? first : second, emails[i % emails.length] ?? EMAIL, `guess ${i}`, '198.51.100.7')),
    );
    expect(answers.filter((answer) => answer.status === 401)).to.have.length(3);
    expect(answers.filter((answer) => answer.status === 429)).to.have.length(7);
    expect(keyIssuances(first, second)).to.equal(3);
  });

  it('when the owner logs in between guesses, then the right login is not counted: the guesses up to the limit still reach the operator-service', async () => {
    const [first, second] = [await replica(), await replica()];
    expect((await login(first, 'guess 1', '198.51.100.1')).status).to.equal(401);
    expect((await login(second, PASSWORD, '203.0.113.9')).status).to.equal(201);
    expect((await login(first, PASSWORD, '203.0.113.9')).status).to.equal(201);
    expect((await login(second, 'guess 2', '198.51.100.2')).status).to.equal(401);
    expect((await login(first, 'guess 3', '198.51.100.3')).status).to.equal(401);
    expect((await login(second, PASSWORD, '203.0.113.9')).status).to.equal(429);
  });

  it('when the database cannot be reached, then each replica counts in memory and still refuses the account', async () => {
    const gateway = await replica('mongodb://127.0.0.1:9/');
    for (let i = 0; i < 3; i += 1) expect((await login(gateway, `guess ${i}`, `198.51.100.${i}`)).status).to.equal(401);
    expect((await login(gateway, PASSWORD, '203.0.113.9')).status).to.equal(429);
  });
});
