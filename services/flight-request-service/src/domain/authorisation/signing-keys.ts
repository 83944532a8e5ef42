import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { publicKeyPems } from '@dfc/kit/config';
import { AUTHORISATION_TOKEN_TYPE, type AuthorisationClaims, type AuthorisationJwk, type AuthorisationJwks } from '@dfc/contracts';

/*
 * The keys of signed authorisations. One Ed25519 key signs; the JWKS publishes
 * its public half together with previous public keys, so tokens signed before
 * a rotation keep verifying while both are listed. Each `kid` is the key's RFC
 * 7638 thumbprint: it cannot disagree with the key, and needs no configuration.
 */

export class AuthorisationKeys {
  private constructor(
    private readonly signingKey: KeyObject,
    /** The signing key's id. */
    readonly kid: string,
    private readonly published: AuthorisationJwk[],
  ) {}

  /**
   * `signingKeyPem`: PKCS#8 Ed25519 private key. `previousPublicKeysPem`: zero
   * or more SPKI public keys, concatenated, published but never signing (the
   * incoming key of a rotation before it signs, the outgoing ones after).
   */
  static fromPem(signingKeyPem: string, previousPublicKeysPem = ''): AuthorisationKeys {
    const signingKey = ed25519(createPrivateKey(signingKeyPem));
    const current = publicJwk(createPublicKey(signingKey));
    const previous = publicKeyPems(previousPublicKeysPem).map((pem) => publicJwk(ed25519(createPublicKey(pem))));
    const published = [current, ...previous.filter((key) => key.kid !== current.kid)];
    return new AuthorisationKeys(signingKey, current.kid, published);
  }

  /** GET /.well-known/jwks.json: the signing key first. */
  jwks(): AuthorisationJwks {
    return { keys: this.published.map((key) => ({ ...key })) };
  }

  /** A compact JWS; Ed25519 is deterministic, so the same claims always give the same token. */
  sign(claims: AuthorisationClaims): Promise<string> {
    return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', typ: AUTHORISATION_TOKEN_TYPE, kid: this.kid }).sign(this.signingKey);
  }
}

function ed25519(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError(`authorisation keys must be Ed25519, not ${key.asymmetricKeyType ?? 'symmetric'}`);
  return key;
}

function publicJwk(key: KeyObject): AuthorisationJwk {
  const { x } = key.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new TypeError('an Ed25519 public key has an x coordinate');
  return { kty: 'OKP', crv: 'Ed25519', x, kid: thumbprint(x), alg: 'EdDSA', use: 'sig' };
}

/** RFC 7638: SHA-256 of the key's required members in lexicographic order, no whitespace (RFC 8037 §2 for OKP). */
function thumbprint(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
}
