import { expect } from 'chai';
import { KeyedQueue } from '../../src/use-cases/keyed-queue.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedQueue', () => {
  it('runs tasks of one key one after another, and of different keys side by side', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await pause(ms);
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([queue.run('a', task('a1', 30)), queue.run('a', task('a2', 1)), queue.run('b', task('b1', 1))]);
    expect(results).to.deep.equal(['a1', 'a2', 'b1']);
    expect(log.indexOf('a2 start')).to.be.greaterThan(log.indexOf('a1 end'));
    expect(log.indexOf('b1 end')).to.be.lessThan(log.indexOf('a1 end'));
  });

  it('a failing task fails alone and does not block the next one', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run('a', async () => {
      throw new Error('boom');
    });
    const next = queue.run('a', async () => 'ran');
    let failure: unknown;
    await failed.catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('boom');
    expect(await next).to.equal('ran');
  });
});
