import { expect } from 'chai';
import fc from 'fast-check';
import { decideAfterAttempt } from '../../src/domain/attempt-outcome.js';
import { parseRetryAfter } from '../../src/domain/retry-after.js';
import { nextRetryDelay, parseRetrySchedule, withJitter } from '../../src/domain/retry-schedule.js';

const PRODUCT_SCHEDULE = parseRetrySchedule('5000,300000,1800000,7200000,18000000,36000000,36000000');
const now = new Date('2026-01-01T00:00:00Z');
const policy = { schedule: [50, 100, 200], maxRetryAfterMs: 60_000 };

describe('retry schedule', () => {
  it('when parsed, then it keeps the PRODUCT delays in order', () => {
    expect(PRODUCT_SCHEDULE).to.deep.equal([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(() => parseRetrySchedule('5,x')).to.throw(/Invalid retry schedule/);
  });

  it('when jittered, then every delay stays within ±20 % of the schedule', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const base = PRODUCT_SCHEDULE[attempt - 1] ?? 0;
        const delay = nextRetryDelay(PRODUCT_SCHEDULE, attempt, () => random) ?? -1;
        return delay >= Math.floor(base * 0.8) && delay <= Math.ceil(base * 1.2);
      }),
    );
  });

  it('when the random source is at its ends, then the bounds are reached', () => {
    expect(withJitter(1000, () => 0)).to.equal(800);
    expect(withJitter(1000, () => 0.5)).to.equal(1000);
    expect(withJitter(1000, () => 0.999999)).to.equal(1200);
  });

  it('when the 8th attempt (the last) fails, then there is no further delay', () => {
    expect(nextRetryDelay(PRODUCT_SCHEDULE, 7)).to.be.a('number');
    expect(nextRetryDelay(PRODUCT_SCHEDULE, 8)).to.equal(undefined);
  });

  it('when the schedule spans the attempts, then the total is about a day', () => {
    const total = PRODUCT_SCHEDULE.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).to.be.within(27, 28);
  });
});

describe('decideAfterAttempt', () => {
  const fixed = () => 0.5;
  it('when the answer is 2xx, then it succeeded', () => {
    for (const status of [200, 201, 204, 299])
      expect(decideAfterAttempt({ statusCode: status, retryAfter: null }, 1, policy, now)).to.deep.equal({ outcome: 'succeeded' });
  });

  it('when the answer is 3xx, 4xx, 5xx or none, then it is retried on schedule', () => {
    for (const status of [301, 302, 400, 404, 500, null]) {
      expect(decideAfterAttempt({ statusCode: status, retryAfter: null }, 2, policy, now, fixed)).to.deep.equal({ outcome: 'retry', delayMs: 100 });
    }
  });

  it('when the answer is 410, then the endpoint is gone', () => {
    expect(decideAfterAttempt({ statusCode: 410, retryAfter: null }, 1, policy, now)).to.deep.equal({ outcome: 'gone' });
  });

  it('when the schedule is exhausted, then it failed', () => {
    expect(decideAfterAttempt({ statusCode: 500, retryAfter: null }, 4, policy, now)).to.deep.equal({ outcome: 'failed' });
  });

  it('when 429 or 503 carries Retry-After, then that delay is used, capped', () => {
    expect(decideAfterAttempt({ statusCode: 429, retryAfter: '2' }, 1, policy, now)).to.deep.equal({ outcome: 'retry', delayMs: 2000 });
    expect(decideAfterAttempt({ statusCode: 503, retryAfter: '3600' }, 1, policy, now)).to.deep.equal({ outcome: 'retry', delayMs: 60_000 });
    const date = new Date(now.getTime() + 5000).toUTCString();
    expect(decideAfterAttempt({ statusCode: 503, retryAfter: date }, 1, policy, now)).to.deep.equal({ outcome: 'retry', delayMs: 5000 });
  });

  it('when Retry-After comes with another status or is unusable, then the schedule applies', () => {
    expect(decideAfterAttempt({ statusCode: 500, retryAfter: '30' }, 1, policy, now, fixed)).to.deep.equal({ outcome: 'retry', delayMs: 50 });
    expect(decideAfterAttempt({ statusCode: 429, retryAfter: 'soon' }, 1, policy, now, fixed)).to.deep.equal({ outcome: 'retry', delayMs: 50 });
  });

  it('when Retry-After is a past date, then it means now', () => {
    expect(parseRetryAfter(new Date(now.getTime() - 10_000).toUTCString(), now)).to.equal(0);
  });
});
