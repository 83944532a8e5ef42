import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { SecretBox } from '../../src/domain/secret-box.js';
import { activeSecrets, generateSigningSecret, rotateSecrets } from '../../src/domain/signing-secrets.js';

const HOUR = 3_600_000;
const now = new Date('2026-01-01T12:00:00Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

describe('signing secrets', () => {
  it('when generated, then it is whsec_ + 32 random bytes in base64url, never twice the same', () => {
    const [one, two] = [generateSigningSecret(), generateSigningSecret()];
    expect(one).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(one.slice(6), 'base64url')).to.have.length(32);
    expect(one).not.to.equal(two);
  });

  it('when rotated, then the new secret comes first and the old one expires after the overlap', () => {
    const old = { name: 'old', created_at: at(-HOUR), expires_at: null };
    const fresh = { name: 'new', created_at: now, expires_at: null };
    const rotated = rotateSecrets([old], fresh, now, 24 * HOUR);
    expect(rotated.map((secret) => secret.name)).to.deep.equal(['new', 'old']);
    expect(rotated[1]!.expires_at).to.deep.equal(at(24 * HOUR));
    expect(activeSecrets(rotated, at(24 * HOUR - 1)).map((secret) => secret.name)).to.deep.equal(['new', 'old']);
    expect(activeSecrets(rotated, at(24 * HOUR)).map((secret) => secret.name)).to.deep.equal(['new']);
  });

  it('when rotated again, then already expired secrets are dropped and no overlap is extended', () => {
    const expired = { name: 'expired', created_at: at(-48 * HOUR), expires_at: at(-HOUR) };
    const ending = { name: 'ending', created_at: at(-30 * HOUR), expires_at: at(HOUR) };
    const current = { name: 'current', created_at: at(-HOUR), expires_at: null };
    const rotated = rotateSecrets([expired, ending, current], { name: 'new', created_at: now, expires_at: null }, now, 24 * HOUR);
    expect(rotated.map((secret) => secret.name)).to.deep.equal(['new', 'current', 'ending']);
    expect(rotated[2]!.expires_at).to.deep.equal(at(HOUR));
  });

  it('when the overlap is 0, then only the new secret remains', () => {
    const rotated = rotateSecrets([{ created_at: at(-HOUR), expires_at: null }], { created_at: now, expires_at: null }, now, 0);
    expect(rotated).to.have.length(1);
  });
});

describe('SecretBox (AES-256-GCM at rest)', () => {
  const box = new SecretBox(randomBytes(32).toString('base64'));

  it('when sealed and opened for the same endpoint, then the plaintext comes back; the sealed form does not contain it', () => {
    const secret = generateSigningSecret();
    const sealed = box.seal(secret, 'endpoint-1');
    expect(box.open(sealed, 'endpoint-1')).to.equal(secret);
    expect(JSON.stringify(sealed)).not.to.include(secret.slice(6));
  });

  it('when sealed twice, then the IVs differ', () => {
    expect(box.seal('same', 'e').iv).not.to.equal(box.seal('same', 'e').iv);
  });

  it('when opened for another endpoint, with another key, or tampered with, then it throws', () => {
    const sealed = box.seal('whsec_x', 'endpoint-1');
    expect(() => box.open(sealed, 'endpoint-2')).to.throw();
    expect(() => new SecretBox(randomBytes(32).toString('base64')).open(sealed, 'endpoint-1')).to.throw();
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: flipped.toString('base64') }, 'endpoint-1')).to.throw();
  });

  it('when a secret was opened before, then it opens again from memory, and a tampered copy or another endpoint still throws', () => {
    const sealed = box.seal('whsec_kept', 'endpoint-5');
    expect(box.open(sealed, 'endpoint-5')).to.equal('whsec_kept');
    expect(box.open({ ...sealed }, 'endpoint-5')).to.equal('whsec_kept');
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: flipped.toString('base64') }, 'endpoint-5')).to.throw();
    expect(() => box.open(sealed, 'endpoint-6')).to.throw();
  });

  it('when the key is not 32 bytes, then it refuses to start', () => {
    expect(() => new SecretBox(randomBytes(16).toString('base64'))).to.throw(/32 bytes/);
  });
});

const newKey = () => randomBytes(32).toString('base64');

describe('SecretBox: a rotation of WEBHOOK_SECRET_KEY', () => {
  const [oldKey, incoming] = [newKey(), newKey()];

  it('when a secret was sealed under the old key, then a box on the new key with the old one decrypt-only opens it, and reseal moves it onto the new key', () => {
    const sealed = new SecretBox(oldKey).seal('whsec_one', 'endpoint-1');
    const box = new SecretBox(incoming, [oldKey]);
    expect(box.open(sealed, 'endpoint-1')).to.equal('whsec_one');
    const moved = box.reseal(sealed, 'endpoint-1')!;
    expect(new SecretBox(incoming).open(moved, 'endpoint-1')).to.equal('whsec_one');
    expect(box.reseal(moved, 'endpoint-1'), 'already under the current key').to.equal(undefined);
  });

  it('when the old key still seals and the incoming one is decrypt-only, then a box already switched is read by one not yet switched', () => {
    const switched = new SecretBox(incoming, [oldKey]);
    const notYet = new SecretBox(oldKey, [incoming]);
    expect(notYet.open(switched.seal('whsec_two', 'endpoint-2'), 'endpoint-2')).to.equal('whsec_two');
  });

  it('when no key opens a secret, then open names the endpoint (and a ciphertext moved to another endpoint does not open)', () => {
    const sealed = new SecretBox(oldKey).seal('whsec_three', 'endpoint-3');
    expect(() => new SecretBox(incoming).open(sealed, 'endpoint-3')).to.throw(/opens the secret of endpoint endpoint-3/);
    expect(() => new SecretBox(oldKey).open(sealed, 'endpoint-4')).to.throw(/endpoint-4/);
  });
});
