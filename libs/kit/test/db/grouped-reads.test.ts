import { expect } from 'chai';
import { GroupedReads } from '@dfc/kit/db';

/** A read the test finishes by hand, answering with the version of the data at the moment the read started. */
function manualReads() {
  const started: string[] = [];
  const finishers: Array<(error?: Error) => void> = [];
  let version = 0;
  const read = (key: string) =>
    new Promise<string>((resolve, reject) => {
      const seen = `${key}@${version}`;
      started.push(seen);
      finishers.push((error) => (error ? reject(error) : resolve(seen)));
    });
  const finish = async (index: number, error?: Error) => {
    finishers[index]!(error);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, read, finish, write: () => (version += 1) };
}

describe('GroupedReads', () => {
  it('when callers ask for a key while its read is under way, then they share one read that starts after they asked', async () => {
    const reads = manualReads();
    const grouped = new GroupedReads<string>();
    const get = (key: string) => grouped.get(key, () => reads.read(key));
    const first = get('a');
    reads.write();
    const later = [get('a'), get('a'), get('a')];
    expect(reads.started).to.deep.equal(['a@0']);
    await reads.finish(0);
    expect(reads.started).to.deep.equal(['a@0', 'a@1']);
    await reads.finish(1);
    expect(await first).to.equal('a@0');
    expect(await Promise.all(later)).to.deep.equal(['a@1', 'a@1', 'a@1']);
  });

  it('when callers ask for different keys, then each key is read on its own', async () => {
    const reads = manualReads();
    const grouped = new GroupedReads<string>();
    const get = (key: string) => grouped.get(key, () => reads.read(key));
    const answers = [get('a'), get('b')];
    expect(reads.started).to.deep.equal(['a@0', 'b@0']);
    await reads.finish(0);
    await reads.finish(1);
    expect(await Promise.all(answers)).to.deep.equal(['a@0', 'b@0']);
  });

  it('when a read fails, then exactly its callers see the error, and the key is read afresh for the next caller', async () => {
    const reads = manualReads();
    const grouped = new GroupedReads<string>();
    const get = (key: string) => grouped.get(key, () => reads.read(key));
    const outcome = get('a').then(
      () => 'fulfilled',
      (error: Error) => error.message,
    );
    await reads.finish(0, new Error('database down'));
    expect(await outcome).to.equal('database down');
    const again = get('a');
    expect(reads.started).to.deep.equal(['a@0', 'a@0']);
    await reads.finish(1);
    expect(await again).to.equal('a@0');
  });
});
