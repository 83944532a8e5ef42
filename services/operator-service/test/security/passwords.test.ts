import { expect } from 'chai';
import { OWASP_ARGON2, PasswordHasher } from '../../src/security/passwords.js';

const MIB = 1024 * 1024;

describe('PasswordHasher', () => {
  it('when a password is hashed, then it verifies against its hash and no other password does', async () => {
    const hasher = new PasswordHasher();
    const hash = await hasher.hash('correct horse battery staple');
    expect(hash)
      .to.match(/^\$argon2id\$/)
      .and.include('m=47104')
      .and.include('t=1');
    expect(await hasher.verify(hash, 'correct horse battery staple')).to.equal(true);
    expect(await hasher.verify(hash, 'correct horse battery stapler')).to.equal(false);
    expect(await hasher.verify('not a hash', 'correct horse battery staple')).to.equal(false);
  });

  it('when a hash was made with other parameters, then it needs a rehash; one of the current parameters or a malformed one does not', async () => {
    const hasher = new PasswordHasher();
    const older = await new PasswordHasher({ memoryCostKib: 19_456, timeCost: 2, parallelism: 1 }).hash('pw');
    expect(hasher.needsRehash(older)).to.equal(true);
    expect(hasher.needsRehash(await hasher.hash('pw'))).to.equal(false);
    expect(hasher.needsRehash('not a hash')).to.equal(false);
  });

  it('when every thread of the pool has hashed with the default parameters, then their working memory is no longer resident', async function () {
    this.timeout(20_000);
    const hasher = new PasswordHasher();
    await hasher.hash('warm up');
    const before = process.memoryUsage.rss();
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(Array.from({ length: 4 }, (_, i) => hasher.hash(`password ${round}.${i}`)));
    }
    const kept = process.memoryUsage.rss() - before;
    // Under one hash's working memory: four threads each keeping theirs would be four times it.
    expect(kept).to.be.below((OWASP_ARGON2.memoryCostKib * 1024) / 2, `${Math.round(kept / MIB)} MiB kept`);
  });
});
