import { expect } from 'chai';
import type { CellClaim } from '../../src/domain/deconfliction/reservation.js';
import { cellClaim } from '../support/fixtures.js';
import { CellSnapshots } from '../../src/store/cell-snapshots.js';

function entries(...ids: string[]): Map<string, CellClaim> {
  return new Map(ids.map((id) => [`${id}.0@cell`, cellClaim(id)]));
}

describe('CellSnapshots (what a process last read of the ledger)', () => {
  it('when a snapshot of a key is kept, then it is offered with its version, whatever version a reader read; none for another key', () => {
    const snapshots = new CellSnapshots();
    snapshots.keep('own:cell', { version: 3, claims: entries('a') });
    expect(snapshots.latest('own:cell')?.claims.size).to.equal(1);
    expect(snapshots.latest('own:cell')?.version).to.equal(3);
    expect(snapshots.latest('own:other')).to.equal(undefined);
  });

  it('when a later snapshot is kept already, then an earlier one does not replace it', () => {
    const snapshots = new CellSnapshots();
    snapshots.keep('own:cell', { version: 5, claims: entries('a', 'b') });
    snapshots.keep('own:cell', { version: 4, claims: entries('a') });
    expect(snapshots.latest('own:cell')?.claims.size).to.equal(2);
  });

  it('when our write raised the version from the one kept, then the snapshot advances with what we wrote; from another version, not at all', () => {
    const snapshots = new CellSnapshots();
    snapshots.keep('own:cell', { version: 2, claims: entries('a') });
    snapshots.advance('own:cell', 1, 2, [['z.0@cell', cellClaim('z')]]);
    expect(snapshots.latest('own:cell')?.claims.has('z.0@cell')).to.equal(false);
    snapshots.advance('own:cell', 2, 3, [['b.0@cell', cellClaim('b')]]);
    const advanced = snapshots.latest('own:cell');
    expect(advanced?.version).to.equal(3);
    expect([...(advanced?.claims.keys() ?? [])]).to.deep.equal(['a.0@cell', 'b.0@cell']);
  });

  it('when claims are withdrawn, then no snapshot lists them any more', () => {
    const snapshots = new CellSnapshots();
    snapshots.keep('own:cell', { version: 1, claims: entries('a', 'b') });
    snapshots.keep('in:cell', { version: 1, claims: entries('b', 'c') });
    snapshots.forget(new Set(['b']));
    expect([...(snapshots.latest('own:cell')?.claims.values() ?? [])].map((one) => one.claim)).to.deep.equal(['a']);
    expect([...(snapshots.latest('in:cell')?.claims.values() ?? [])].map((one) => one.claim)).to.deep.equal(['c']);
  });

  it('when claims are withdrawn, then a snapshot already given to a reader stays as it was, and one listing none of them is the same one', () => {
    const snapshots = new CellSnapshots();
    snapshots.keep('own:cell', { version: 1, claims: entries('a', 'b') });
    snapshots.keep('in:cell', { version: 1, claims: entries('c') });
    const held = snapshots.latest('own:cell');
    const untouched = snapshots.latest('in:cell');
    snapshots.forget(new Set(['a']));
    expect([...(held?.claims.values() ?? [])].map((one) => one.claim)).to.deep.equal(['a', 'b']);
    expect(snapshots.latest('in:cell')).to.equal(untouched);
    snapshots.forget(new Set());
    expect([...(snapshots.latest('own:cell')?.claims.values() ?? [])].map((one) => one.claim)).to.deep.equal(['b']);
  });

  it('when claims are withdrawn, then they no longer count towards what the process keeps', () => {
    const snapshots = new CellSnapshots();
    const many = Array.from({ length: 6_000 }, (_, n) => `claim-${n}`);
    snapshots.keep('own:first', { version: 1, claims: entries(...many) });
    snapshots.forget(new Set(many.slice(0, 2_000)));
    snapshots.keep('own:second', { version: 1, claims: entries(...many.slice(0, 5_000).map((id) => `${id}-2`)) });
    expect(snapshots.latest('own:first')?.claims.size).to.equal(4_000);
    expect(snapshots.latest('own:second')?.claims.size).to.equal(5_000);
  });

  it('when more claims are kept than the process keeps, then the least recently read cells go first', () => {
    const snapshots = new CellSnapshots();
    const many = Array.from({ length: 6_000 }, (_, n) => `claim-${n}`);
    snapshots.keep('own:first', { version: 1, claims: entries(...many) });
    snapshots.keep('own:second', { version: 1, claims: entries(...many.map((id) => `${id}-2`)) });
    expect(snapshots.latest('own:first')).to.equal(undefined);
    expect(snapshots.latest('own:second')?.claims.size).to.equal(6_000);
  });
});
