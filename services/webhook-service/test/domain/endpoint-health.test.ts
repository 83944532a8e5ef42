import { expect } from 'chai';
import { DISABLED_REASONS, coolingUntil, healthAfterAttempt, healthWhenEnabled, type EndpointHealth } from '../../src/domain/endpoint-health.js';

const policy = { coolOffAfterFailures: 3, coolOffMs: 60_000, disableAfterMs: 5 * 86_400_000 };
const healthy: EndpointHealth = { enabled: true, disabled_reason: null, consecutive_failures: 0, failing_since: null, cooling_until: null };
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('endpoint health', () => {
  it('when a healthy endpoint succeeds, then nothing changes (no write)', () => {
    expect(healthAfterAttempt(healthy, 'succeeded', at(0), policy)).to.equal(null);
  });

  it('when failures follow each other, then the streak grows and the threshold starts a cool-off', () => {
    let health = healthy;
    for (let failure = 1; failure <= 3; failure++) health = { ...health, ...healthAfterAttempt(health, 'failed', at(failure * 1000), policy) };
    expect(health.consecutive_failures).to.equal(3);
    expect(health.failing_since).to.deep.equal(at(1000));
    expect(health.cooling_until).to.deep.equal(at(3000 + 60_000));
    expect(coolingUntil(health, at(4000))).to.deep.equal(at(63_000));
    expect(coolingUntil(health, at(63_000))).to.equal(null);
  });

  it('when the probe after a cool-off fails, then it cools off again; when it succeeds, then the streak ends', () => {
    const cooling: EndpointHealth = { ...healthy, consecutive_failures: 3, failing_since: at(0), cooling_until: at(60_000) };
    expect(healthAfterAttempt(cooling, 'failed', at(61_000), policy)?.cooling_until).to.deep.equal(at(121_000));
    expect(healthAfterAttempt(cooling, 'succeeded', at(61_000), policy)).to.deep.equal({
      consecutive_failures: 0,
      failing_since: null,
      cooling_until: null,
    });
  });

  it('when the receiver answers 410, then the endpoint is disabled at once', () => {
    expect(healthAfterAttempt(healthy, 'gone', at(0), policy)).to.include({ enabled: false, disabled_reason: DISABLED_REASONS.gone });
  });

  it('when every attempt failed for 5 days, then the endpoint is disabled', () => {
    const failing: EndpointHealth = { ...healthy, consecutive_failures: 40, failing_since: at(0) };
    expect(healthAfterAttempt(failing, 'failed', at(5 * 86_400_000 - 1), policy)?.enabled).to.equal(undefined);
    expect(healthAfterAttempt(failing, 'failed', at(5 * 86_400_000), policy)).to.include({
      enabled: false,
      disabled_reason: 'Every delivery failed for 5 days.',
    });
  });

  it('when re-enabled, then the streak and the cool-off are forgotten', () => {
    expect(healthWhenEnabled()).to.deep.equal({
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 0,
      failing_since: null,
      cooling_until: null,
    });
  });
});
