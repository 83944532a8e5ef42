import { expect } from 'chai';
import mongoose, { type Connection } from 'mongoose';
import { Lease, LEASES_COLLECTION } from '@dfc/kit/db';
import { testDependencies, uniqueName } from '@dfc/kit/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Lease (real database, two connections as two replicas)', () => {
  let first: Connection;
  let second: Connection;

  before(async () => {
    const { mongoUrl } = await testDependencies();
    const dbName = uniqueName('kit_lease');
    first = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
    second = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
  });

  after(async () => {
    await second.close();
    await first.dropDatabase();
    await first.close();
  });

  it('when ten replicas ask for a free lease at once, then exactly one holds it', async () => {
    const name = uniqueName('free');
    const leases = Array.from({ length: 10 }, (_, index) => new Lease(index % 2 === 0 ? first : second, name, { ttlMs: 60_000 }));
    const held = await Promise.all(leases.map((lease) => lease.acquire()));
    expect(held.filter(Boolean)).to.have.length(1);
    const stored = await first.db!.collection<{ _id: string; owner: string }>(LEASES_COLLECTION).findOne({ _id: name });
    expect(stored?.owner).to.equal(leases[held.indexOf(true)]!.owner);
  });

  it('when ten replicas ask at once for a lease that lapsed, then exactly one takes it over', async () => {
    const name = uniqueName('lapsed');
    expect(await new Lease(first, name, { ttlMs: 50 }).acquire()).to.equal(true);
    await sleep(120);
    const leases = Array.from({ length: 10 }, (_, index) => new Lease(index % 2 === 0 ? first : second, name, { ttlMs: 60_000 }));
    const held = await Promise.all(leases.map((lease) => lease.acquire()));
    expect(held.filter(Boolean)).to.have.length(1);
  });

  it('when the holder died, then another replica is refused until the lease lapses, and then takes it', async () => {
    const name = uniqueName('dead');
    const dead = new Lease(first, name, { ttlMs: 300 });
    const next = new Lease(second, name, { ttlMs: 300 });
    expect(await dead.acquire()).to.equal(true);
    expect(await next.acquire(), 'while the dead owner’s lease lasts').to.equal(false);
    await sleep(400);
    expect(await next.acquire(), 'once it lapsed').to.equal(true);
    expect(await dead.acquire(), 'the old owner, back, finds it taken').to.equal(false);
  });

  it('when the holder renews or gives the lease up, then it keeps it, and after the release another takes it at once', async () => {
    const name = uniqueName('renew');
    const holder = new Lease(first, name, { ttlMs: 60_000 });
    const other = new Lease(second, name, { ttlMs: 60_000 });
    expect(await holder.acquire()).to.equal(true);
    expect(await holder.acquire(), 'renewed').to.equal(true);
    expect(await other.acquire()).to.equal(false);
    await holder.release();
    expect(await other.acquire()).to.equal(true);
  });

  it('runIfHeld: a round longer than the lease keeps it renewed, the other replica skips that round, and with release the next round is free', async () => {
    const name = uniqueName('round');
    const holder = new Lease(first, name, { ttlMs: 150 });
    const other = new Lease(second, name, { ttlMs: 150 });
    const otherRan: boolean[] = [];
    const ran = await holder.runIfHeld(
      async () => {
        for (let tick = 0; tick < 5; tick++) {
          await sleep(100);
          otherRan.push(await other.runIfHeld(() => Promise.resolve()));
        }
      },
      { release: true },
    );
    expect(ran).to.equal(true);
    expect(otherRan, 'during the long round').to.deep.equal([false, false, false, false, false]);
    expect(await other.runIfHeld(() => Promise.resolve()), 'after the release').to.equal(true);
  });
});
