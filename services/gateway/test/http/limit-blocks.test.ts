import { expect } from 'chai';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { BlockLimiter } from '../../src/http/limit-blocks.js';

/** Calls `limiters` in turn, `calls` times: how many each one allowed, and the remaining counts it reported. */
async function callInTurns(
  limiters: BlockLimiter[],
  calls: number,
): Promise<{ allowed: number[]; remaining: number[][]; refusals: RateLimiterRes[] }> {
  const allowed = limiters.map(() => 0);
  const remaining: number[][] = limiters.map(() => []);
  const refusals: RateLimiterRes[] = [];
  for (let call = 0; call < calls; call++) {
    const index = call % limiters.length;
    try {
      const answer = await limiters[index]!.consume('key-1');
      allowed[index]! += 1;
      remaining[index]!.push(answer.remainingPoints);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      refusals.push(refusal);
    }
  }
  return { allowed, remaining, refusals };
}

describe('BlockLimiter (a shared limit taken a few calls at a time)', () => {
  it('when one replica calls past a limit of 600 a minute, then it allows exactly 600, counting down one by one, and refuses the rest with the time left', async () => {
    const shared = new RateLimiterMemory({ points: 600, duration: 60 });
    const limiter = new BlockLimiter(shared, 60);
    expect(limiter.size).to.equal(10);
    const { allowed, remaining, refusals } = await callInTurns([limiter], 650);
    expect(allowed).to.deep.equal([600]);
    expect(remaining[0]).to.deep.equal(Array.from({ length: 600 }, (_, n) => 599 - n));
    expect(refusals).to.have.length(50);
    expect(refusals.every((refusal) => refusal.msBeforeNext > 0 && refusal.msBeforeNext <= 60_000)).to.equal(true);
  });

  it('when three replicas share the counter, then together they never allow more than the limit, and lose at most a block less a call each', async () => {
    const shared = new RateLimiterMemory({ points: 600, duration: 60 });
    const replicas = [new BlockLimiter(shared, 60), new BlockLimiter(shared, 60), new BlockLimiter(shared, 60)];
    const { allowed } = await callInTurns(replicas, 1_200);
    const total = allowed.reduce((sum, one) => sum + one, 0);
    expect(total).to.be.at.most(600);
    expect(total).to.be.at.least(600 - 3 * 9);
  });

  it('when the limit is small (failures, registrations), then every call is counted on the shared counter as it comes', async () => {
    const shared = new RateLimiterMemory({ points: 30, duration: 60 });
    const replicas = [new BlockLimiter(shared, 60), new BlockLimiter(shared, 60)];
    expect(replicas[0]!.size).to.equal(1);
    const { allowed } = await callInTurns(replicas, 40);
    expect(allowed).to.deep.equal([15, 15]);
  });

  it('when the window of a block ends, then what is left of it is not served: the next call takes from the new window', async () => {
    let now = 1_000_000;
    const shared = new RateLimiterMemory({ points: 120, duration: 1 });
    const limiter = new BlockLimiter(shared, 60, () => now);
    expect(limiter.size).to.equal(2);
    await limiter.consume('key-1');
    now += 2_000;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const before = await shared.get('key-1');
    await limiter.consume('key-1');
    const after = await shared.get('key-1');
    expect(before).to.equal(null);
    expect(after?.consumedPoints).to.equal(2);
  });
});
