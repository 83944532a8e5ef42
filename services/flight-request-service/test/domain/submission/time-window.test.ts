import { expect } from 'chai';
import { parseUtcInstant } from '../../../src/domain/submission/time-window.js';

describe('parseUtcInstant', () => {
  it('when a UTC timestamp names a real instant, then it is that instant, fractions to the millisecond', () => {
    expect(parseUtcInstant('2026-12-01T10:00:00Z')?.toISOString()).to.equal('2026-12-01T10:00:00.000Z');
    expect(parseUtcInstant('2028-02-29T23:59:59.123456789Z')?.toISOString()).to.equal('2028-02-29T23:59:59.123Z');
    expect(parseUtcInstant('0000-01-01T00:00:00Z')?.toISOString()).to.equal('0000-01-01T00:00:00.000Z');
  });

  it('when the day or hour does not exist, then null rather than the instant it would roll over to', () => {
    for (const text of ['2027-02-30T10:00:00Z', '2027-02-29T10:00:00Z', '2026-04-31T00:00:00Z', '2026-03-01T24:00:00Z', '2026-03-01T23:59:60Z']) {
      expect(parseUtcInstant(text), text).to.equal(null);
    }
  });

  it('when the text is not of the Z form, then null', () => {
    for (const text of ['2026-12-01T10:00:00+01:00', '2026-12-01T10:00Z', '2026-12-01', 'soon', '']) {
      expect(parseUtcInstant(text), text).to.equal(null);
    }
  });
});
