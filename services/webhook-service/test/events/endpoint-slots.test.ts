import { expect } from 'chai';
import { EndpointSlots } from '../../src/events/endpoint-slots.js';

/** Work that runs until the test lets it finish. */
function heldWork() {
  let finish = () => {};
  let started = false;
  const work = () =>
    new Promise<void>((resolve) => {
      started = true;
      finish = resolve;
    });
  return { work, finish: () => finish(), started: () => started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('EndpointSlots (the per-endpoint limit of one replica)', () => {
  it('when the limit is reached, then further work waits, up to the waiting allowance, and runs as slots free up', async () => {
    const slots = new EndpointSlots(1, 2);
    const first = heldWork();
    const second = heldWork();
    const third = heldWork();
    const running = [slots.run('a', first.work), slots.run('a', second.work), slots.run('a', third.work)];
    await tick();
    expect([first.started(), second.started(), third.started()]).to.deep.equal([true, false, false]);
    expect(await slots.run('a', () => Promise.resolve())).to.equal('busy');
    first.finish();
    await tick();
    expect(second.started()).to.equal(true);
    second.finish();
    await tick();
    third.finish();
    expect(await Promise.all(running)).to.deep.equal([undefined, undefined, undefined]);
  });

  it('when one endpoint is busy, then another endpoint still runs at once', async () => {
    const slots = new EndpointSlots(1, 1);
    const slow = heldWork();
    const pending = slots.run('slow', slow.work);
    expect(await slots.run('other', () => Promise.resolve('sent'))).to.equal('sent');
    slow.finish();
    expect(await pending).to.equal(undefined);
  });

  it('when work fails, then its slot is freed for the next', async () => {
    const slots = new EndpointSlots(1, 1);
    await slots.run('a', () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await slots.run('a', () => Promise.resolve('sent'))).to.equal('sent');
  });

  it('when a replica has a window of 64 and a limit of 4, then 32 messages of one endpoint may wait before the next is turned away', async () => {
    const slots = EndpointSlots.forReplica(4, 64);
    const held = Array.from({ length: 4 + 32 }, heldWork);
    const running = held.map((entry) => slots.run('a', entry.work));
    await tick();
    expect(held.filter((entry) => entry.started())).to.have.length(4);
    expect(await slots.run('a', () => Promise.resolve())).to.equal('busy');
    for (const entry of held) {
      entry.finish();
      await tick();
    }
    expect(await Promise.all(running)).to.not.include('busy');
  });
});
