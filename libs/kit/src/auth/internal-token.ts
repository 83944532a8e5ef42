import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { Middleware } from 'koa';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { INTERNAL_TOKEN_AUDIENCE, INTERNAL_TOKEN_HEADER, INTERNAL_TOKEN_ISSUER, ROLES, type Principal, type Role } from '@dfc/contracts';
import { publicKeyPems } from '../config.js';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';

/**
 * Gateway → service authentication. The gateway alone holds the Ed25519
 * private key; services hold only the public key, so a compromised service
 * cannot mint tokens for the others. Tokens live a minute: long enough for a
 * slow request, short enough that a leaked one is soon useless.
 */
export const INTERNAL_TOKEN_TTL_SECONDS = 60;

export class InternalTokenSigner {
  private readonly key: KeyObject;

  constructor(privateKeyPem: string) {
    this.key = createPrivateKey(privateKeyPem);
  }

  sign(principal: Principal): Promise<string> {
    return new SignJWT({ ...principal })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer(INTERNAL_TOKEN_ISSUER)
      .setAudience(INTERNAL_TOKEN_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${INTERNAL_TOKEN_TTL_SECONDS}s`)
      .sign(this.key);
  }
}

/** Distinct tokens remembered as verified: the gateway hands out one per caller per half-minute. */
const VERIFIED_TOKENS = 1000;

/**
 * Accepts tokens signed by any of its public keys: one, or during a rotation
 * the old and the new, so gateways on either key are understood while pods roll.
 * A token verified once is remembered until it expires: the gateway reuses a
 * caller's token for half its life, and an Ed25519 verification per request was
 * a service's largest cost of a read after the database's.
 * The key is the whole token, signature included, so nothing unverified matches.
 */
export class InternalTokenVerifier {
  private readonly keys: KeyObject[];
  private readonly verified = new LRUCache<string, { principal: Principal; expiresAtMs: number }>({ max: VERIFIED_TOKENS });

  /** One PEM public key, or several concatenated. */
  constructor(publicKeysPem: string) {
    const pems = publicKeyPems(publicKeysPem);
    this.keys = (pems.length > 0 ? pems : [publicKeysPem]).map((pem) => createPublicKey(pem));
  }

  async verify(token: string): Promise<Principal> {
    const known = this.verified.get(token);
    if (known !== undefined && known.expiresAtMs > Date.now()) return known.principal;
    const payload = await this.verifiedPayload(token);
    if (typeof payload.sub !== 'string' || !ROLES.includes(payload['role'] as Role)) {
      throw new UnauthenticatedError();
    }
    const principal: Principal = {
      sub: payload.sub,
      role: payload['role'] as Role,
      ...optionalClaim(payload, 'operator_uuid'),
      ...optionalClaim(payload, 'authority'),
      ...optionalClaim(payload, 'key_id'),
    };
    if (typeof payload.exp === 'number') this.verified.set(token, { principal, expiresAtMs: payload.exp * 1000 });
    return principal;
  }

  /** A signature that fails with one key is tried with the next; an expired or misaddressed token fails at once. */
  private async verifiedPayload(token: string): Promise<JWTPayload> {
    const options = { issuer: INTERNAL_TOKEN_ISSUER, audience: INTERNAL_TOKEN_AUDIENCE, algorithms: ['EdDSA'] };
    let failure: unknown;
    for (const key of this.keys) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error;
        failure = error;
      }
    }
    throw failure;
  }
}

function optionalClaim(payload: Record<string, unknown>, name: 'operator_uuid' | 'authority' | 'key_id') {
  const value = payload[name];
  return typeof value === 'string' ? { [name]: value } : {};
}

/** Refuses any request that does not carry a valid internal token (401). */
export function requireInternalToken(verifier: InternalTokenVerifier): Middleware {
  return async (ctx, next) => {
    const token = ctx.get(INTERNAL_TOKEN_HEADER);
    if (!token) throw new UnauthenticatedError();
    try {
      ctx.state.principal = await verifier.verify(token);
    } catch {
      throw new UnauthenticatedError();
    }
    await next();
  };
}

/** Route guard: the principal must hold one of the roles (403 otherwise). */
export function requireRole(...roles: Role[]): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal as Principal | undefined;
    if (!principal) throw new UnauthenticatedError();
    if (!roles.includes(principal.role)) throw new ForbiddenError();
    await next();
  };
}
