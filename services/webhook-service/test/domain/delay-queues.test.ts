import { expect } from 'chai';
import fc from 'fast-check';
import { busyWait, freeFormDelay } from '../../src/domain/delay-queues.js';
import { delayQueueName } from '../../src/messaging.js';
import { JITTER_STEPS, nextRetryDelay, parseRetrySchedule } from '../../src/domain/retry-schedule.js';

const PRODUCT_SCHEDULE = parseRetrySchedule('5000,300000,1800000,7200000,18000000,36000000,36000000');

describe('delay queues (scheduled attempts wait on the broker)', () => {
  it('when each retry step of the PRODUCT schedule is jittered, then every delay is one of 21 values within ±20 %, both ends reached', () => {
    PRODUCT_SCHEDULE.forEach((base, index) => {
      const delays = new Set<number>();
      for (let step = 0; step <= JITTER_STEPS; step++) delays.add(nextRetryDelay(PRODUCT_SCHEDULE, index + 1, () => step / (JITTER_STEPS + 1)) ?? -1);
      expect(delays.size, `step ${index + 1}`).to.equal(JITTER_STEPS + 1);
      expect(Math.min(...delays)).to.equal(base * 0.8);
      expect(Math.max(...delays)).to.equal(base * 1.2);
      for (const delay of delays) expect(delay).to.be.within(base * 0.8, base * 1.2);
    });
  });

  it('when a free-form wait (Retry-After, cool-off) is rounded to a queue, then it is never shorter and at most 10 % longer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 86_400_000 }), (asked) => {
        const delay = freeFormDelay(asked);
        return delay >= asked && delay <= asked * 1.1 && String(delay).replace(/0+$/, '').length <= 2;
      }),
    );
    expect(freeFormDelay(0)).to.equal(0);
    expect(freeFormDelay(1234)).to.equal(1300);
  });

  it('when named, then the queue says its delay', () => {
    expect(delayQueueName(4000)).to.equal('webhook-service.delay.4000ms');
  });

  it('when an endpoint stays busy, then its message waits half a second, twice as long each time in a row, up to 32 s: seven delay queues in all', () => {
    const waits = Array.from({ length: 40 }, (_, busyWaits) => busyWait(busyWaits));
    expect(waits.slice(0, 8)).to.deep.equal([500, 1000, 2000, 4000, 8000, 16_000, 32_000, 32_000]);
    expect(new Set(waits).size).to.equal(7);
    expect(busyWait(1_000_000)).to.equal(32_000);
  });
});
