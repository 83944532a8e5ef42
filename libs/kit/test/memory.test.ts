import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createLogger } from '@dfc/kit/logging';
import { compactHeap, HeapCompaction } from '@dfc/kit/service';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many compactions the registry has recorded after `work`. */
async function compactionsAfter(registry: Registry, work: string): Promise<number> {
  const [metric] = await registry.getMetricsAsJSON();
  const values = (metric?.values ?? []) as Array<{ metricName?: string; labels: Record<string, unknown>; value: number }>;
  const count = values.find((value) => value.metricName === 'heap_compaction_pause_seconds_count' && value.labels['after'] === work);
  return count?.value ?? 0;
}

describe('compactHeap (one full, compacting collection)', () => {
  it('when start-up left garbage, then the heap it reports afterwards no longer holds it', () => {
    let garbage: Array<{ index: number; text: string }> | undefined = Array.from({ length: 200_000 }, (_, index) => ({ index, text: `item ${index}` }));
    expect(garbage).to.have.length(200_000);
    // eslint-disable-next-line no-useless-assignment -- dropping the only reference is what leaves the array to the collector
    garbage = undefined;
    const { before, after, pauseMs } = compactHeap();
    expect(before - after).to.be.greaterThan(8 * 2 ** 20);
    expect(pauseMs).to.be.greaterThan(0);
  });

  it('when it has run, then neither this context nor a new one has a gc function', () => {
    const globalGcBefore = typeof (globalThis as { gc?: unknown }).gc;
    compactHeap();
    expect(typeof (globalThis as { gc?: unknown }).gc).to.equal(globalGcBefore);
    expect(runInNewContext('typeof gc')).to.equal('undefined');
  });
});

describe('HeapCompaction (one compaction a moment after bulk work)', () => {
  const compactionFor = (delayMs: number) => {
    const registry = new Registry();
    return { registry, compaction: new HeapCompaction({ log: createLogger('test', 'silent'), registry, delayMs }) };
  };

  it('when pieces of bulk work overlap, then one compaction runs, the delay after the last has ended, and its pause is recorded', async () => {
    // Wide margins: a loaded CI machine may run a timer tens of milliseconds late.
    const { registry, compaction } = compactionFor(250);
    const first = compaction.after('zone import', () => sleep(600));
    await sleep(20);
    const second = compaction.after('zone import', () => sleep(20));
    await second;
    await sleep(300);
    expect(await compactionsAfter(registry, 'zone import'), 'while the first still runs').to.equal(0);
    await first;
    await sleep(50);
    expect(await compactionsAfter(registry, 'zone import'), 'within the delay').to.equal(0);
    await sleep(500);
    expect(await compactionsAfter(registry, 'zone import')).to.equal(1);
  });

  it('when the work fails, then its error reaches the caller and the heap is compacted all the same', async () => {
    const { registry, compaction } = compactionFor(20);
    const failed = await compaction.after('zone import', () => Promise.reject(new Error('invalid'))).catch((error: Error) => error.message);
    expect(failed).to.equal('invalid');
    await sleep(100);
    expect(await compactionsAfter(registry, 'zone import')).to.equal(1);
  });

  it('when the service stops before the delay is over, then no compaction runs', async () => {
    const { registry, compaction } = compactionFor(50);
    expect(await compaction.after('zone import', () => Promise.resolve('imported'))).to.equal('imported');
    compaction.stop();
    await sleep(120);
    expect(await compactionsAfter(registry, 'zone import')).to.equal(0);
  });
});
