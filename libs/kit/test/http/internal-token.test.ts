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
  const refusal = (token: string) =>
    both.verify(token).then(
      () => undefined,
      (error: unknown) => error,
    );

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

describe('InternalTokenVerifier: tokens verified before', () => {
  const keys = generateTokenKeys();
  const verifier = new InternalTokenVerifier(keys.publicKeyPem);
  it('when a token accepted a moment ago has expired since, then it is refused as expired, not taken from memory', async () => {
    // Seconds of margin before it expires, so a slow machine still verifies it in time the first time.
    const expiresAt = Math.floor(Date.now() / 1000) + 3;
    const token = await new SignJWT({ ...principal })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer(INTERNAL_TOKEN_ISSUER)
      .setAudience(INTERNAL_TOKEN_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .sign(createPrivateKey(keys.privateKeyPem));
    expect(await verifier.verify(token)).to.deep.equal(principal);
    await new Promise((resolve) => setTimeout(resolve, expiresAt * 1000 + 200 - Date.now()));
    const refusal = await verifier.verify(token).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).to.have.property('code', 'ERR_JWT_EXPIRED');
  });

  it('when an accepted token is sent again with its signature altered, then the altered one is refused', async () => {
    const token = await new InternalTokenSigner(keys.privateKeyPem).sign(principal);
    expect(await verifier.verify(token)).to.deep.equal(principal);
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    const altered = `${token.slice(0, -2)}${last}${token.at(-1)}`;
    const refusal = await verifier.verify(altered).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(Error);
    expect(await verifier.verify(token)).to.deep.equal(principal);
  });
});
