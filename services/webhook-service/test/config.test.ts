import { expect } from 'chai';
import { ConfigError } from '@dfc/kit/config';
import { loadWebhookConfig, retentionOf } from '../src/config.js';

const base = { INTERNAL_TOKEN_PUBLIC_KEY: 'pem', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('webhook-service configuration: the shutdown grace period', () => {
  it('when neither is set, then the grace period (15 s) outlasts the webhook timeout (10 s) by the margin', () => {
    const config = loadWebhookConfig(base);
    expect(config).to.include({ WEBHOOK_TIMEOUT_MS: 10_000, SHUTDOWN_GRACE_MS: 15_000 });
  });

  it('when SHUTDOWN_GRACE_MS is not at least WEBHOOK_TIMEOUT_MS + 5 s, then a ConfigError names both', () => {
    for (const grace of ['10000', '14999']) {
      expect(() => loadWebhookConfig({ ...base, SHUTDOWN_GRACE_MS: grace }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.match(/SHUTDOWN_GRACE_MS \(\d+\) must be at least WEBHOOK_TIMEOUT_MS \(10000\) \+ 5000/);
    }
  });

  it('when the webhook timeout is shortened, then a grace period of timeout + 5 s is accepted', () => {
    expect(loadWebhookConfig({ ...base, WEBHOOK_TIMEOUT_MS: '2000', SHUTDOWN_GRACE_MS: '7000' })).to.include({ SHUTDOWN_GRACE_MS: 7_000 });
  });
});

describe('webhook-service configuration: retention', () => {
  it('when nothing is set, then deliveries and attempts are kept 30 days', () => {
    expect(retentionOf(loadWebhookConfig(base))).to.deep.equal({ deliverySeconds: 30 * 86_400, attemptSeconds: 30 * 86_400 });
  });

  it('when deliveries would be deleted before the longest wait of a pending one, then a ConfigError says so', () => {
    expect(() => loadWebhookConfig({ ...base, WEBHOOK_DELIVERY_TTL_DAYS: '1' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.match(/WEBHOOK_DELIVERY_TTL_DAYS \(1\) must be longer than the longest wait of a pending delivery/);
  });
});
