import { expect } from 'chai';
import { ConflictError } from '@dfc/kit/errors';
import { FLIGHT_REQUEST_STATUSES, type FlightRequestStatus } from '@dfc/contracts';
import { activation, cancellation, ending, isFinal, transition } from '../../../src/domain/state-machine/transitions.js';

const at = new Date('2026-12-01T09:00:00Z');
const context = { actor: 'operator', reason: 'plans changed', at };

const LEGAL: Array<[FlightRequestStatus, FlightRequestStatus]> = [
  ['Pending', 'Approved'],
  ['Pending', 'Rejected'],
  ['Pending', 'Cancelled'],
  ['Pending', 'Expired'],
  ['Approved', 'Cancelled'],
  ['Approved', 'Rescinded'],
  ['Approved', 'Activated'],
  ['Approved', 'Ended'],
  ['Approved', 'Pending'],
  ['Approved', 'Approved'],
  ['Approved', 'Suspended'],
  ['Suspended', 'Approved'],
  ['Suspended', 'Rejected'],
  ['Suspended', 'Cancelled'],
  ['Suspended', 'Rescinded'],
  ['Activated', 'Ended'],
];

describe('flight request state machine', () => {
  for (const [from, to] of LEGAL) {
    it(`when ${from} becomes ${to}, then the history entry records status, time, actor and reason`, () => {
      expect(transition(from, to, context)).to.deep.equal({ status: to, at, actor: 'operator', reason: 'plans changed' });
    });
  }

  for (const from of FLIGHT_REQUEST_STATUSES) {
    for (const to of FLIGHT_REQUEST_STATUSES) {
      if (LEGAL.some(([a, b]) => a === from && b === to)) continue;
      it(`when ${from} is asked to become ${to}, then 409`, () => {
        expect(() => transition(from, to, context)).to.throw(ConflictError);
      });
    }
  }

  it('when a Rejected request is cancelled, then the 409 says so in words', () => {
    expect(() => transition('Rejected', 'Cancelled', context)).to.throw('A Rejected flight request cannot be cancelled.');
  });

  it('when an Expired request is approved, then the article fits the status', () => {
    expect(() => transition('Expired', 'Approved', context)).to.throw('An Expired flight request cannot be approved.');
  });

  it('Rejected, Cancelled, Expired, Rescinded and Ended are final; Pending, Approved, Suspended and Activated are not', () => {
    expect(FLIGHT_REQUEST_STATUSES.filter(isFinal)).to.deep.equal(['Rejected', 'Cancelled', 'Expired', 'Rescinded', 'Ended']);
  });

  describe('cancellation', () => {
    it('when the window has not ended, then an Approved request may be cancelled', () => {
      const entry = cancellation({ status: 'Approved', end_time: new Date(at.getTime() + 1) }, context);
      expect(entry.status).to.equal('Cancelled');
    });

    it('when the window ended exactly now, then 409 naming the ended window', () => {
      expect(() => cancellation({ status: 'Approved', end_time: at }, context)).to.throw(
        'A flight request whose flight window has ended cannot be cancelled.',
      );
    });

    it('when the request is Cancelled already, then 409 from the state machine', () => {
      expect(() => cancellation({ status: 'Cancelled', end_time: new Date(at.getTime() + 60_000) }, context)).to.throw(
        'A Cancelled flight request cannot be cancelled.',
      );
    });
  });

  describe('activation', () => {
    const window = { start_time: at, end_time: new Date(at.getTime() + 3_600_000) };

    it('when an Approved flight is activated at its start, then the entry is Activated', () => {
      expect(activation({ status: 'Approved', ...window }, context).status).to.equal('Activated');
    });

    it('when it is activated a millisecond early, or at its end, then 409 naming the window', () => {
      const early = { ...context, at: new Date(at.getTime() - 1) };
      expect(() => activation({ status: 'Approved', ...window }, early)).to.throw('A flight cannot be activated before its flight window starts.');
      const late = { ...context, at: window.end_time };
      expect(() => activation({ status: 'Approved', ...window }, late)).to.throw('A flight whose flight window has ended cannot be activated.');
    });

    it('when the request is Pending, then 409 from the state machine before the window is looked at', () => {
      expect(() => activation({ status: 'Pending', ...window }, { ...context, at: new Date(0) })).to.throw(
        'A Pending flight request cannot be activated.',
      );
    });
  });

  describe('ending', () => {
    it('when an Activated flight is ended, then the entry is Ended; an Approved one is to be cancelled instead', () => {
      expect(ending({ status: 'Activated' }, context).status).to.equal('Ended');
      expect(() => ending({ status: 'Approved' }, context)).to.throw('An Approved flight that was not activated cannot be ended; cancel it instead.');
      expect(() => ending({ status: 'Rescinded' }, context)).to.throw('A Rescinded flight request cannot be ended.');
    });
  });
});
