import { expect } from 'chai';
import type { Principal } from '@dfc/contracts';
import { KeyCache } from '../../src/store/key-cache.js';
import { TtlMap } from '../../src/store/ttl-map.js';

const principal: Principal = { sub: 'op-1', role: 'operator', operator_uuid: 'op-1', key_id: '00000000000000a1' };

describe('KeyCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000;
  });

  it('when a key was verified, then it is served from the cache until the TTL passes', async () => {
    const cache = new KeyCache(30_000, clock);
    let verifications = 0;
    const verify = () => {
      verifications += 1;
      return Promise.resolve(principal);
    };
    expect(await cache.resolve('digest', verify)).to.equal(principal);
    now += 29_999;
    expect(await cache.resolve('digest', verify)).to.equal(principal);
    expect(verifications).to.equal(1);
    now += 1;
    await cache.resolve('digest', verify);
    expect(verifications).to.equal(2);
  });

  it('when many calls miss at once, then one verification serves them all', async () => {
    const cache = new KeyCache(30_000, clock);
    let verifications = 0;
    const verify = async () => {
      verifications += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return principal;
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.resolve('digest', verify)));
    expect(verifications).to.equal(1);
    expect(results.every((result) => result === principal)).to.equal(true);
  });

  it('when a key is unknown, then nothing is cached and the next call asks again', async () => {
    const cache = new KeyCache(30_000, clock);
    let verifications = 0;
    const verify = () => {
      verifications += 1;
      return Promise.resolve(undefined);
    };
    expect(await cache.resolve('digest', verify)).to.equal(undefined);
    expect(await cache.resolve('digest', verify)).to.equal(undefined);
    expect(verifications).to.equal(2);
    expect(cache.size).to.equal(0);
  });

  it('when a key is revoked, then its entry is dropped at once', async () => {
    const cache = new KeyCache(30_000, clock);
    await cache.resolve('digest', () => Promise.resolve(principal));
    expect(cache.revoke('00000000000000a1')).to.equal(1);
    expect(await cache.resolve('digest', () => Promise.resolve(undefined))).to.equal(undefined);
  });

  it('when a verification in flight answers after the key was revoked, then the key is not cached', async () => {
    const cache = new KeyCache(30_000, clock);
    let answer: (value: Principal) => void = () => undefined;
    const pending = cache.resolve('digest', () => new Promise<Principal>((resolve) => (answer = resolve)));
    cache.revoke('00000000000000a1');
    answer(principal);
    expect(await pending).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('when the verification fails, then the error reaches the caller and the next call tries again', async () => {
    const cache = new KeyCache(30_000, clock);
    let error: unknown;
    await cache.resolve('digest', () => Promise.reject(new Error('down'))).catch((caught: unknown) => (error = caught));
    expect((error as Error).message).to.equal('down');
    expect(await cache.resolve('digest', () => Promise.resolve(principal))).to.equal(principal);
  });
});

describe('TtlMap', () => {
  it('when full, then the oldest entry makes room', () => {
    const map = new TtlMap<string, number>(1_000, 2, () => 0);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).to.equal(undefined);
    expect(map.get('b')).to.equal(2);
    expect(map.get('c')).to.equal(3);
    expect(map.size).to.equal(2);
  });
});
