import { expect } from 'chai';
import type { FlightRequestRecord } from '@dfc/contracts';
import { amendment, draftOf, flightActions } from '../../src/screens/amendment';

const record = {
  uuid: 'r',
  status: 'Approved',
  start_time: '2026-12-03T10:00:00Z',
  end_time: '2026-12-03T11:00:00Z',
  max_altitude: 100,
  purpose: 'Survey',
} as FlightRequestRecord;
const at = (iso: string) => Date.parse(iso);

describe('the console: what an operator may do with a flight request now (pure)', () => {
  it('when the window has not started, then a Pending or Approved request may be amended, not activated', () => {
    expect(flightActions(record, at('2026-12-03T09:59:00Z'))).to.deep.equal({ amend: true, activate: false, end: false });
    expect(flightActions({ ...record, status: 'Pending' }, at('2026-12-03T09:00:00Z'))).to.include({ amend: true, activate: false });
    expect(flightActions({ ...record, status: 'Rejected' }, at('2026-12-03T09:00:00Z'))).to.include({ amend: false });
  });

  it('when the window is open, then an Approved request may be activated (not amended), an Activated one ended; after it, neither', () => {
    expect(flightActions(record, at('2026-12-03T10:00:00Z'))).to.deep.equal({ amend: false, activate: true, end: false });
    expect(flightActions({ ...record, status: 'Activated' }, at('2026-12-03T10:30:00Z'))).to.deep.equal({ amend: false, activate: false, end: true });
    expect(flightActions(record, at('2026-12-03T11:00:00Z'))).to.deep.equal({ amend: false, activate: false, end: false });
  });

  it('when an amendment is drafted, then only the changed fields are sent, as submission sends them; nothing changed is null', () => {
    const draft = draftOf(record);
    expect(draft).to.deep.equal({ start_time: '2026-12-03T10:00', end_time: '2026-12-03T11:00', max_altitude: '100', purpose: 'Survey' });
    expect(amendment(record, draft)).to.equal(null);
    expect(amendment(record, { ...draft, max_altitude: '80', end_time: '2026-12-03T11:30' })).to.deep.equal({
      end_time: '2026-12-03T11:30:00Z',
      max_altitude: 80,
    });
  });
});
