import { expect } from 'chai';
import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import { decideItem, isComplete, openItems, reviewAuthorities, withdrawPending, type ReviewItem } from '../../../src/domain/review/review-group.js';

const at = new Date('2026-12-01T09:00:00Z');
let counter = 0;
const newId = () => `item-${++counter}`;

function group(): ReviewItem[] {
  counter = 0;
  return openItems(
    [
      { kind: 'zone_authorisation', authority: 'LVNL', zone_id: 'ctr-1', finding_codes: ['ZONE_REQUIRES_AUTHORISATION'], message: 'CTR' },
      { kind: 'altitude', authority: 'NATIONAL', zone_id: null, finding_codes: ['ALTITUDE_ABOVE_LIMIT'], message: 'high' },
      { kind: 'deconfliction', authority: 'NATIONAL', zone_id: null, finding_codes: ['DECONFLICTION_OVERLAP'], message: 'overlap' },
    ],
    newId,
  );
}

describe('review group', () => {
  it('opens every draft as a pending item with its own id', () => {
    const items = group();
    expect(items.map((item) => [item.id, item.status])).to.deep.equal([
      ['item-1', 'pending'],
      ['item-2', 'pending'],
      ['item-3', 'pending'],
    ]);
    expect(reviewAuthorities(items)).to.deep.equal(['LVNL', 'NATIONAL']);
  });

  it('when one of several items is approved, then the group stays open and settles nothing', () => {
    const outcome = decideItem(group(), 'item-1', { decision: 'approve', reason: 'ok', actor: 'reviewer:LVNL', at });
    expect(outcome.completed).to.equal(false);
    expect(outcome.settles).to.equal(null);
    expect(outcome.decided).to.include({ status: 'approved', reason: 'ok', decided_by: 'reviewer:LVNL' });
  });

  it('when the last pending item is approved, then the group completes and the request is Approved', () => {
    let items = group();
    for (const id of ['item-1', 'item-2']) items = decideItem(items, id, { decision: 'approve', reason: 'ok', actor: 'admin', at }).items;
    const outcome = decideItem(items, 'item-3', { decision: 'approve', reason: 'ok', actor: 'admin', at });
    expect(outcome.completed).to.equal(true);
    expect(outcome.settles).to.equal('Approved');
    expect(isComplete(outcome.items)).to.equal(true);
  });

  it('when an item is rejected, then every other pending item is cascade-rejected and the request is Rejected', () => {
    const items = decideItem(group(), 'item-1', { decision: 'approve', reason: 'ok', actor: 'admin', at }).items;
    const outcome = decideItem(items, 'item-2', { decision: 'reject', reason: 'too high', actor: 'reviewer:NATIONAL', at });
    expect(outcome.settles).to.equal('Rejected');
    expect(outcome.cascaded.map((item) => item.id)).to.deep.equal(['item-3']);
    expect(outcome.items.map((item) => item.status)).to.deep.equal(['approved', 'rejected', 'cascade_rejected']);
    expect(outcome.completed).to.equal(true);
  });

  it('when a decided item is decided again, then 409 naming its state', () => {
    const items = decideItem(group(), 'item-1', { decision: 'reject', reason: 'no', actor: 'admin', at }).items;
    expect(() => decideItem(items, 'item-2', { decision: 'approve', reason: 'ok', actor: 'admin', at })).to.throw(
      ConflictError,
      'The review item is already cascade-rejected.',
    );
  });

  it('when the item is unknown, then 404', () => {
    expect(() => decideItem(group(), 'nope', { decision: 'approve', reason: 'ok', actor: 'admin', at })).to.throw(NotFoundError);
  });

  it('withdrawing leaves decided items alone and withdraws the pending ones', () => {
    const items = decideItem(group(), 'item-1', { decision: 'approve', reason: 'ok', actor: 'admin', at }).items;
    const withdrawn = withdrawPending(items, 'operator', at, 'cancelled');
    expect(withdrawn.map((item) => item.status)).to.deep.equal(['approved', 'withdrawn', 'withdrawn']);
    expect(isComplete(withdrawn)).to.equal(true);
  });
});
