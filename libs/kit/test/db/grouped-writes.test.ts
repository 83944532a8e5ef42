import { expect } from 'chai';
import { GroupedWrites } from '@dfc/kit/db';

/** A write the test finishes by hand, so it decides what arrives while a batch is being written. */
function manualWrites() {
  const batches: number[][] = [];
  const finishers: Array<(error?: Error) => void> = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      finishers.push((error) => (error ? reject(error) : resolve()));
    });
  const finish = async (index: number, error?: Error) => {
    finishers[index]!(error);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, write, finish };
}

describe('GroupedWrites', () => {
  it('when an item comes alone, then it is written at once, in a batch of its own', async () => {
    const writes = manualWrites();
    const grouped = new GroupedWrites(writes.write);
    const done = grouped.add(1);
    expect(writes.batches).to.deep.equal([[1]]);
    await writes.finish(0);
    await done;
  });

  it('when items arrive while a batch is being written, then they go together in the next one', async () => {
    const writes = manualWrites();
    const grouped = new GroupedWrites(writes.write);
    const all = [grouped.add(1), grouped.add(2), grouped.add(3), grouped.add(4)];
    expect(writes.batches).to.deep.equal([[1]]);
    await writes.finish(0);
    expect(writes.batches).to.deep.equal([[1], [2, 3, 4]]);
    await writes.finish(1);
    await Promise.all(all);
  });

  it('when a batch is larger than the limit, then it is split', async () => {
    const writes = manualWrites();
    const grouped = new GroupedWrites(writes.write, 2);
    const all = [grouped.add(1), grouped.add(2), grouped.add(3), grouped.add(4), grouped.add(5)];
    await writes.finish(0);
    await writes.finish(1);
    await writes.finish(2);
    expect(writes.batches).to.deep.equal([[1], [2, 3], [4, 5]]);
    await Promise.all(all);
  });

  it('when a batch fails, then exactly its callers see the error and the next batch is still written', async () => {
    const writes = manualWrites();
    const grouped = new GroupedWrites(writes.write);
    const first = grouped.add(1);
    const second = grouped.add(2);
    const third = grouped.add(3);
    await writes.finish(0, new Error('database down'));
    await writes.finish(1);
    const outcomes = await Promise.allSettled([first, second, third]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason).to.have.property('message', 'database down');
  });
});
