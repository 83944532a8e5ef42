import { expect } from 'chai';
import type { Principal } from '@dfc/contracts';
import { InternalTokenSigner, InternalTokenVerifier } from '@dfc/kit/http';
import { generateTokenKeys } from '@dfc/kit/testing';
import { InternalTokenCache, TOKEN_REUSE_MS } from '../../src/store/token-cache.js';

describe('InternalTokenCache', () => {
  const keys = generateTokenKeys();
  const signer = new InternalTokenSigner(keys.privateKeyPem);
  const verifier = new InternalTokenVerifier(keys.publicKeyPem);
  const principal: Principal = { sub: 'op-1', role: 'operator', operator_uuid: 'op-1', key_id: '00000000000000a1' };

  it('when a principal calls again within half the token life, then the same token is reused', async () => {
    let now = 0;
    const cache = new InternalTokenCache(signer, TOKEN_REUSE_MS, () => now);
    const first = await cache.tokenFor(principal);
    now += TOKEN_REUSE_MS - 1;
    expect(await cache.tokenFor(principal)).to.equal(first);
    expect(await verifier.verify(first)).to.deep.equal(principal);
  });

  it('when half the token life has passed, then a new token is signed', async () => {
    let now = 0;
    const cache = new InternalTokenCache(signer, TOKEN_REUSE_MS, () => now);
    const first = await cache.tokenFor(principal);
    now += TOKEN_REUSE_MS;
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // a new `iat` second, so the token differs
    const second = await cache.tokenFor(principal);
    expect(second).to.not.equal(first);
    expect(await verifier.verify(second)).to.deep.equal(principal);
  });

  it('when two principals call, then each gets a token naming itself', async () => {
    const cache = new InternalTokenCache(signer);
    const other: Principal = { sub: 'admin', role: 'admin', key_id: '00000000000000ad' };
    expect(await verifier.verify(await cache.tokenFor(principal))).to.deep.equal(principal);
    expect(await verifier.verify(await cache.tokenFor(other))).to.deep.equal(other);
  });
});
