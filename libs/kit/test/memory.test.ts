import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { collectStartUpGarbage } from '@dfc/kit/service';

describe('collectStartUpGarbage (one full collection once a service has started)', () => {
  it('when start-up left garbage, then the heap it reports afterwards no longer holds it', () => {
    let garbage: Array<{ index: number; text: string }> | undefined = Array.from({ length: 200_000 }, (_, index) => ({ index, text: `item ${index}` }));
    expect(garbage).to.have.length(200_000);
    garbage = undefined;
    const { before, after } = collectStartUpGarbage();
    expect(before - after).to.be.greaterThan(8 * 2 ** 20);
  });

  it('when it has run, then neither this context nor a new one has a gc function', () => {
    const globalGcBefore = typeof (globalThis as { gc?: unknown }).gc;
    collectStartUpGarbage();
    expect(typeof (globalThis as { gc?: unknown }).gc).to.equal(globalGcBefore);
    expect(runInNewContext('typeof gc')).to.equal('undefined');
  });
});
