import { expect } from 'chai';
import { API_KEY_PATTERN, toOffsetTimestamp } from '@dfc/contracts';
import { keyIdOf, lastFourOf, principalOf } from '../../src/domain/api-key.js';
import { apiKeyMatches, digestApiKey, generateApiKey } from '../../src/security/api-key-secrets.js';

describe('API keys', () => {
  it('generateApiKey makes keys of the documented shape, each different', () => {
    const keys = Array.from({ length: 50 }, () => generateApiKey());
    for (const { id, key } of keys) {
      expect(key).to.match(API_KEY_PATTERN);
      expect(keyIdOf(key)).to.equal(id);
    }
    expect(new Set(keys.map(({ key }) => key)).size).to.equal(50);
  });

  it('a key matches its own digest only', () => {
    const { key } = generateApiKey();
    const digest = digestApiKey(key);
    expect(digest).to.match(/^[0-9a-f]{64}$/);
    expect(apiKeyMatches(key, digest)).to.equal(true);
    expect(apiKeyMatches(generateApiKey().key, digest)).to.equal(false);
    expect(apiKeyMatches(key, 'not hex')).to.equal(false);
  });

  it('keyIdOf refuses text that is not a key', () => {
    expect(keyIdOf('dfc_0123456789abcdef_short')).to.equal(undefined);
    expect(keyIdOf(` ${generateApiKey().key}`)).to.equal(undefined);
  });

  it('lastFourOf is the last four characters', () => {
    expect(lastFourOf('dfc_0123456789abcdef_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ')).to.equal('NOPQ');
  });

  it('principalOf gives each role its claims, and nothing for an incomplete record', () => {
    expect(principalOf({ _id: 'k', role: 'operator', operator_uuid: 'u', authority: null })).to.deep.equal({
      sub: 'u',
      role: 'operator',
      operator_uuid: 'u',
      key_id: 'k',
    });
    expect(principalOf({ _id: 'k', role: 'reviewer', operator_uuid: null, authority: 'LBA' })).to.deep.equal({
      sub: 'k',
      role: 'reviewer',
      authority: 'LBA',
      key_id: 'k',
    });
    expect(principalOf({ _id: 'k', role: 'admin', operator_uuid: null, authority: null })).to.deep.equal({
      sub: 'k',
      role: 'admin',
      key_id: 'k',
    });
    expect(principalOf({ _id: 'k', role: 'operator', operator_uuid: null, authority: null })).to.equal(undefined);
    expect(principalOf({ _id: 'k', role: 'reviewer', operator_uuid: null, authority: null })).to.equal(undefined);
  });

  it('timestamps are written with whole seconds and +00:00', () => {
    expect(toOffsetTimestamp(new Date('2026-11-23T10:00:00.789Z'))).to.equal('2026-11-23T10:00:00+00:00');
  });
});
