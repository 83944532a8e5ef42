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
  it('when bulk work asks twice within the delay, then one compaction runs, after the last request, and its pause is recorded', async () => {
    const registry = new Registry();
    const compaction = new HeapCompaction({ log: createLogger('test', 'silent'), registry, delayMs: 100 });
    compaction.request('zone import');
    await sleep(60);
    compaction.request('zone import');
    await sleep(60);
    expect(await compactionsAfter(registry, 'zone import')).to.equal(0);
    await sleep(150);
    expect(await compactionsAfter(registry, 'zone import')).to.equal(1);
  });

  it('when the service stops before the delay is over, then no compaction runs', async () => {
    const registry = new Registry();
    const compaction = new HeapCompaction({ log: createLogger('test', 'silent'), registry, delayMs: 50 });
    compaction.request('zone import');
    compaction.stop();
    await sleep(120);
    expect(await compactionsAfter(registry, 'zone import')).to.equal(0);
  });
});
