import { expect } from 'chai';
import { ConfigError } from '@dfc/kit/config';
import { loadServiceConfig } from '../src/config.js';

const ADMIN_API_KEY = 'dfc_00000000000000ad_local-development-admin-key-change-me-00000';
const base = { INTERNAL_TOKEN_PUBLIC_KEY: 'pem', ADMIN_API_KEY };

describe('operator-service configuration', () => {
  it('when only the required variables are set, then the documented defaults apply', () => {
    const config = loadServiceConfig(base);
    expect(config).to.include({
      PORT: 8081,
      HOST: '127.0.0.1',
      MONGO_DB: 'dfc_operators',
      AMQP_EXCHANGE: 'dfc.events',
      ARGON2_MEMORY_KIB: 47104,
      ARGON2_TIME_COST: 1,
      ARGON2_PARALLELISM: 1,
      LOG_LEVEL: 'info',
    });
  });

  it('when ADMIN_API_KEY is missing, then a ConfigError names it', () => {
    expect(() => loadServiceConfig({ INTERNAL_TOKEN_PUBLIC_KEY: 'pem' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.includes('ADMIN_API_KEY is required');
  });

  it('when ADMIN_API_KEY is not shaped like a key, then a ConfigError names it without echoing the value', () => {
    const secret = 'dfc_tooshort_but-secret-value';
    let failure: ConfigError | undefined;
    try {
      loadServiceConfig({ ...base, ADMIN_API_KEY: secret });
    } catch (error) {
      failure = error as ConfigError;
    }
    expect(failure).to.be.instanceOf(ConfigError);
    expect(failure?.message).to.include('ADMIN_API_KEY');
    expect(failure?.message).not.to.include(secret);
  });

  it('when PORT is not a number or argon2 memory is below 8 MiB, then both are reported at once', () => {
    expect(() => loadServiceConfig({ ...base, PORT: 'eighty', ARGON2_MEMORY_KIB: '1024' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.has.length(2);
  });
});
