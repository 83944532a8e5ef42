import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Connection } from 'mongoose';
import { connectMongo, syncIndexes } from '@dfc/kit/db';
import { createLogger } from '@dfc/kit/logging';
import { testDependencies, uniqueName, waitFor } from '@dfc/kit/testing';
import { EndpointSlots } from '../../src/events/endpoint-slots.js';
import { endpointSlotModel } from '../../src/store/endpoint-slot-model.js';
import { EndpointSlotStore } from '../../src/store/endpoint-slot-store.js';
import { sleep } from '../support.js';

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

const HOLD_MS = 60_000;
const MARGIN_MS = 1_000;
const WORK_MS = 5_000;

describe('EndpointSlots (the per-endpoint limit across replicas, held in the database)', () => {
  let connection: Connection;
  let store: EndpointSlotStore;
  const replica = (limit: number, maxWaiting: number, slotStore = store) => new EndpointSlots(slotStore, limit, maxWaiting, WORK_MS);
  const started = (works: Array<ReturnType<typeof heldWork>>) => works.filter((work) => work.started()).length;

  before(async () => {
    connection = await connectMongo((await testDependencies()).mongoUrl, uniqueName('wh_slots'), createLogger('test', 'silent'), 3);
    endpointSlotModel(connection);
    await syncIndexes(connection);
    store = new EndpointSlotStore(endpointSlotModel(connection), HOLD_MS, MARGIN_MS);
  });

  after(async () => {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  });

  it('when the limit is reached, then further work waits, up to the waiting allowance, and runs as slots free up', async () => {
    const slots = replica(1, 2);
    const endpoint = randomUUID();
    const works = [heldWork(), heldWork(), heldWork()];
    const running = works.map((work) => slots.run(endpoint, work.work));
    await waitFor(() => works[0]!.started());
    await sleep(100);
    expect(works.map((work) => work.started())).to.deep.equal([true, false, false]);
    expect(await slots.run(endpoint, () => Promise.resolve())).to.equal('busy');
    works[0]!.finish();
    await waitFor(() => works[1]!.started());
    works[1]!.finish();
    await waitFor(() => works[2]!.started());
    works[2]!.finish();
    expect(await Promise.all(running)).to.deep.equal([undefined, undefined, undefined]);
    expect(await endpointSlotModel(connection).countDocuments({ endpoint_id: endpoint }), 'every slot given back').to.equal(0);
  });

  it('when one endpoint is busy, then another endpoint still runs at once', async () => {
    const slots = replica(1, 1);
    const slow = heldWork();
    const pending = slots.run(randomUUID(), slow.work);
    await waitFor(() => slow.started());
    expect(await slots.run(randomUUID(), () => Promise.resolve('sent'))).to.equal('sent');
    slow.finish();
    expect(await pending).to.equal(undefined);
  });

  it('when work fails, then its slot is freed for the next', async () => {
    const slots = replica(1, 1);
    const endpoint = randomUUID();
    await slots.run(endpoint, () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await slots.run(endpoint, () => Promise.resolve('sent'))).to.equal('sent');
  });

  it('when two replicas share an endpoint limit of 3, then no more than 3 run at once between them, and the replica holding none is told busy at once', async () => {
    const [one, two] = [replica(3, 10), replica(3, 10)];
    const endpoint = randomUUID();
    const onOne = Array.from({ length: 3 }, heldWork);
    const running = onOne.map((work) => one.run(endpoint, work.work));
    await waitFor(() => started(onOne) === 3);
    expect(await two.run(endpoint, () => Promise.resolve('sent')), 'every slot is the other replica’s').to.equal('busy');
    const waitingOnOne = heldWork();
    const queued = one.run(endpoint, waitingOnOne.work);
    onOne[0]!.finish();
    await waitFor(() => waitingOnOne.started());
    expect(await two.run(endpoint, () => Promise.resolve('sent')), 'the freed slot went to work waiting where it was held').to.equal('busy');
    for (const work of [...onOne, waitingOnOne]) work.finish();
    await Promise.all([...running, queued]);
    expect(await two.run(endpoint, () => Promise.resolve('sent')), 'given back: free for any replica').to.equal('sent');
  });

  it('when a replica dies holding a slot, then the slot is taken over once its hold has expired, and not before', async () => {
    const shortHolds = new EndpointSlotStore(endpointSlotModel(connection), 1_500, 200);
    const endpoint = randomUUID();
    const dead = await shortHolds.take(endpoint, 1, new Set());
    expect(dead, 'the dead replica’s hold').to.not.equal(null);
    const survivor = replica(1, 1, shortHolds);
    expect(await survivor.run(endpoint, () => Promise.resolve('sent')), 'while the hold lasts').to.equal('busy');
    await sleep(1_600);
    expect(await survivor.run(endpoint, () => Promise.resolve('sent')), 'after it expired').to.equal('sent');
  });

  it('when a replica has a window of 64 and a limit of 4, then 32 messages of one endpoint may wait before the next is turned away', async () => {
    const slots = EndpointSlots.forReplica(store, 4, 64, WORK_MS);
    const endpoint = randomUUID();
    const held = Array.from({ length: 4 + 32 }, heldWork);
    const running = held.map((entry) => slots.run(endpoint, entry.work));
    await waitFor(() => started(held) === 4);
    await sleep(100);
    expect(started(held)).to.equal(4);
    expect(await slots.run(endpoint, () => Promise.resolve())).to.equal('busy');
    for (const entry of held) {
      await waitFor(() => entry.started());
      entry.finish();
    }
    expect(await Promise.all(running)).to.not.include('busy');
  });
});
