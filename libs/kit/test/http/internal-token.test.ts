import { expect } from 'chai';
import { SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';
import { INTERNAL_TOKEN_AUDIENCE, INTERNAL_TOKEN_ISSUER, type Principal } from '@dfc/contracts';
import { InternalTokenSigner, InternalTokenVerifier } from '@dfc/kit/http';
import { generateTokenKeys } from '@dfc/kit/testing';

const principal: Principal = { sub: 'op-1', role: 'operator', operator_uuid: 'op-1', key_id: '0123456789abcdef' };

describe('InternalTokenVerifier: the overlap of a key rotation', () => {
  const [oldKeys, newKeys, strangerKeys] = [generateTokenKeys(), generateTokenKeys(), generateTokenKeys()];
  const both = new InternalTokenVerifier(`${oldKeys.publicKeyPem}${newKeys.publicKeyPem}`);
  const refusal = (token: string) => both.verify(token).then(() => undefined, (error: unknown) => error);

  it('when it holds two public keys, then a token signed with either is accepted', async () => {
    for (const keys of [oldKeys, newKeys]) {
      expect(await both.verify(await new InternalTokenSigner(keys.privateKeyPem).sign(principal))).to.deep.equal(principal);
    }
  });

  it('when a token is signed with neither key, then it is refused', async () => {
    const token = await new InternalTokenSigner(strangerKeys.privateKeyPem).sign(principal);
    expect(await refusal(token)).to.be.instanceOf(Error);
  });

  it('when a token signed with the second key has expired, then it is refused as expired', async () => {
    const expired = await new SignJWT({ ...principal })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer(INTERNAL_TOKEN_ISSUER)
      .setAudience(INTERNAL_TOKEN_AUDIENCE)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(createPrivateKey(newKeys.privateKeyPem));
    expect(await refusal(expired)).to.have.property('code', 'ERR_JWT_EXPIRED');
  });
});
