import { expect } from 'chai';
import { grantOperatorKey, type TestGateway } from '../support/gateway.js';
import { limitSharingReplicas } from '../support/limit-replicas.js';

const OPERATOR = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';

describe('gateway: call limits counted across replicas', () => {
  const limitReplica = limitSharingReplicas('gateway_call_limits');

  /** A replica counting into the suite's database, or `mongoUrl`'s. */
  const replica = (perKeyPerMinute: number, publicPerIpPerMinute = 1000, mongoUrl?: string): Promise<TestGateway> =>
    limitReplica({ mongoUrl, maxPoolSize: 4, rateLimits: { perKeyPerMinute, publicPerIpPerMinute } });

  describe('GET /api/zones with one key through three replicas', () => {
    // One call at a time, each to the next replica: the local engine's updates are not atomic across connections
    // (docs/architecture.md, "The local engine"), so concurrent counts there can be lost; MongoDB's cannot.
    it('when the key sends twice its limit, each call to the next replica, then the limit holds for the three together', async () => {
      const replicas = [await replica(30), await replica(30), await replica(30)];
      const { key, principal } = grantOperatorKey(replicas[0]!, OPERATOR);
      for (const gateway of replicas.slice(1)) gateway.validKeys.set(key, principal);
      const statuses: number[] = [];
      for (let call = 0; call < 60; call += 1) {
        const gateway = replicas[call % replicas.length]!;
        statuses.push((await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } })).status);
      }
      const allowed = statuses.filter((status) => status === 200).length;
      expect(allowed, statuses.join(' ')).to.be.within(27, 33);
      expect(statuses.filter((status) => status !== 200 && status !== 429)).to.deep.equal([]);
      const served = replicas.reduce((sum, gateway) => sum + gateway.flights.calls.length, 0);
      expect(served).to.equal(allowed);
    });
  });

  describe('GET /api/zones with one key through three replicas, at a limit counted in blocks', () => {
    it('when the key sends twice its limit of 600, each call to the next replica, then the three together allow it within 10 % and never more', async () => {
      const replicas = [await replica(600), await replica(600), await replica(600)];
      const { key, principal } = grantOperatorKey(replicas[0]!, OPERATOR);
      for (const gateway of replicas.slice(1)) gateway.validKeys.set(key, principal);
      const statuses: number[] = [];
      for (let call = 0; call < 1_200; call += 1) {
        const gateway = replicas[call % replicas.length]!;
        statuses.push((await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } })).status);
      }
      const allowed = statuses.filter((status) => status === 200).length;
      expect(allowed).to.be.within(540, 600);
      expect(statuses.filter((status) => status !== 200 && status !== 429)).to.deep.equal([]);
      expect(statuses.slice(-30).every((status) => status === 429)).to.equal(true);
    });
  });

  describe('POST /api/operators from one address through two replicas', () => {
    it('when it registers over its limit at both, then the second replica refuses what the first counted', async () => {
      const [first, second] = [await replica(600, 2), await replica(600, 2)];
      const register = (gateway: TestGateway) =>
        fetch(`${gateway.url}/api/operators`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status);
      expect([await register(first), await register(first), await register(second)]).to.deep.equal([200, 200, 429]);
    });
  });

  describe('GET /api/zones while the limits’ database cannot be reached', () => {
    it('when a key calls past its limit, then the replica counts in memory: 200 until the limit, then 429, never an error', async () => {
      const gateway = await replica(3, 1000, 'mongodb://127.0.0.1:9/');
      const { key } = grantOperatorKey(gateway, OPERATOR);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await fetch(`${gateway.url}/api/zones`, { headers: { 'X-API-Key': key } })).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    });
  });
});
