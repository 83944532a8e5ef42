import { expect } from 'chai';
import { dateWindow } from '../../../src/domain/listing/list-filter.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

describe('dateWindow', () => {
  it('when the zone is UTC, then the window runs from from_date 00:00 to the end of to_date', () => {
    const window = dateWindow('2026-03-28', '2026-03-29', 'UTC');
    expect([iso(window.from), iso(window.until)]).to.deep.equal(['2026-03-28T00:00:00.000Z', '2026-03-30T00:00:00.000Z']);
  });

  it('when the zone is an IANA name, then days are its local days, a DST change included', () => {
    const spring = dateWindow('2026-03-29', '2026-03-29', 'Europe/Amsterdam');
    expect([iso(spring.from), iso(spring.until)]).to.deep.equal(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    const autumn = dateWindow('2026-10-25', undefined, 'Pacific/Auckland');
    expect([iso(autumn.from), iso(autumn.until)]).to.deep.equal(['2026-10-24T11:00:00.000Z', null]);
  });

  it('when the zone is unknown, then days are UTC days; a missing date leaves that side open', () => {
    const window = dateWindow(undefined, '2026-10-25', 'Nowhere/Atlantis');
    expect([iso(window.from), iso(window.until)]).to.deep.equal([null, '2026-10-26T00:00:00.000Z']);
  });
});
