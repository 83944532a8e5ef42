import { expect } from 'chai';
import fc from 'fast-check';
import mongoose, { type Connection } from 'mongoose';
import { testDependencies, uniqueName } from '@dfc/kit/testing';
import type { LedgerCell } from '../../src/domain/deconfliction/airspace-volume.js';
import { cellClaim } from '../support/fixtures.js';
import { airspaceCellModel, cellClaimModel } from '../../src/store/airspace-ledger-model.js';
import { AirspaceLedgerStore } from '../../src/store/airspace-ledger-store.js';

const CELLS: LedgerCell[] = [
  { id: 'u173zq:2026-12-02T10', own: true },
  { id: 'u173:2026-12-02T10', own: false },
];

/** One process's view of the ledger: its own connection and store, as a replica of flight-request-service has. */
async function replica(database: string): Promise<{ connection: Connection; store: AirspaceLedgerStore }> {
  const { mongoUrl } = await testDependencies();
  const connection = await mongoose.createConnection(mongoUrl, { dbName: database }).asPromise();
  const cells = airspaceCellModel(connection);
  const claims = cellClaimModel(connection);
  await Promise.all([cells.init(), claims.init()]);
  return { connection, store: new AirspaceLedgerStore(cells, claims) };
}

async function claimsIn(store: AirspaceLedgerStore, cell: LedgerCell): Promise<string[]> {
  return [...new Set((await store.read(cell)).claims.map((one) => one.claim))].sort();
}

/** Writes `claim` into `cell` as a claimer does: read, then write from the version read, again while another claim won the race. */
async function writeInto(store: AirspaceLedgerStore, cell: LedgerCell, claim: string, own = true): Promise<void> {
  for (;;) {
    const read = await store.read(cell);
    if (await store.write(read, [{ claim: cellClaim(claim), own }])) return;
  }
}

describe('AirspaceLedgerStore (the reservation ledger across replicas)', () => {
  let database: string;
  let replicas: Array<{ connection: Connection; store: AirspaceLedgerStore }>;

  beforeEach(async () => {
    database = uniqueName('ledger');
    replicas = [await replica(database), await replica(database)];
  });

  afterEach(async () => {
    await replicas[0]?.connection.dropDatabase();
    await Promise.all(replicas.map(({ connection }) => connection.close()));
  });

  it('when two replicas write, lose races and withdraw claims in any order, then each one reads every claim committed and not withdrawn by itself, as a fresh process does', async () => {
    const operation = fc.record({
      by: fc.integer({ min: 0, max: 1 }),
      cell: fc.integer({ min: 0, max: CELLS.length - 1 }),
      kind: fc.constantFrom('write', 'write after a lost race', 'withdraw'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 4, maxLength: 10 }), async (operations) => {
        const runDatabase = uniqueName('ledger_run');
        const pair = [await replica(runDatabase), await replica(runDatabase)];
        try {
          const written: string[] = [];
          const withdrawnBy = new Map<string, number>();
          for (const [step, { by, cell, kind }] of operations.entries()) {
            const [ours, theirs] = [pair[by]!.store, pair[1 - by]!.store];
            const place = CELLS[cell]!;
            if (kind === 'withdraw' && written.length > 0) {
              const claim = written[step % written.length]!;
              await ours.withdraw([claim]);
              withdrawnBy.set(claim, by);
              continue;
            }
            const claim = `claim-${step}`;
            if (kind === 'write after a lost race') {
              const stale = await ours.read(place);
              await writeInto(theirs, place, `${claim}-rival`);
              written.push(`${claim}-rival`);
              expect(await ours.write(stale, [{ claim: cellClaim(claim), own: true }])).to.equal(false);
            }
            await writeInto(ours, place, claim);
            written.push(claim);
          }
          const fresh = await replica(runDatabase);
          try {
            for (const place of CELLS) {
              const truth = await claimsIn(fresh.store, place);
              for (const [index, { store }] of pair.entries()) {
                const seen = await claimsIn(store, place);
                expect(seen, `replica ${index} in ${place.id}`).to.include.members(truth);
                const extra = seen.filter((claim) => !truth.includes(claim));
                for (const claim of extra) expect(withdrawnBy.get(claim), `${claim} listed by replica ${index}`).to.equal(1 - index);
              }
            }
          } finally {
            await fresh.connection.close();
          }
        } finally {
          await pair[0]!.connection.dropDatabase();
          await Promise.all(pair.map(({ connection }) => connection.close()));
        }
      }),
      { numRuns: 12 },
    );
  });

  it('when another replica wrote many times since this one read the cell, then the next read lists every claim it wrote', async () => {
    const [first, second] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const cell = CELLS[0]!;
    await writeInto(first.store, cell, 'early');
    expect(await claimsIn(first.store, cell)).to.deep.equal(['early']);
    const later = Array.from({ length: 12 }, (_, n) => `later-${String(n).padStart(2, '0')}`);
    for (const claim of later) await writeInto(second.store, cell, claim);
    expect(await claimsIn(first.store, cell)).to.deep.equal(['early', ...later]);
    await writeInto(second.store, cell, 'last');
    expect(await claimsIn(first.store, cell)).to.deep.equal(['early', 'last', ...later]);
  });
});
