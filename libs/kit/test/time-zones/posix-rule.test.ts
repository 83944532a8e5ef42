import { expect } from 'chai';
import { parsePosixRule, posixOffsetAt } from '../../src/time-zones/posix-rule.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const HOUR = 3600;

describe('POSIX TZ rules (a TZif footer)', () => {
  it('when the zone has no daylight time, then its one offset, east of UTC (POSIX writes it west)', () => {
    const rule = parsePosixRule('<+13>-13');
    expect(rule).to.deep.equal({ standardOffset: 13 * HOUR });
    expect(posixOffsetAt(parsePosixRule('EST5')!, at('2090-07-01T00:00:00Z'))).to.equal(-5 * HOUR);
  });

  it('when the rule is month.week.day, then the change happens at its local time on that day: CET-1CEST,M3.5.0,M10.5.0/3', () => {
    const rule = parsePosixRule('CET-1CEST,M3.5.0,M10.5.0/3')!;
    // 2050: last Sunday of March is the 27th, of October the 30th; 02:00 CET = 01:00Z, 03:00 CEST = 01:00Z.
    expect(posixOffsetAt(rule, at('2050-03-27T00:59:59Z'))).to.equal(HOUR);
    expect(posixOffsetAt(rule, at('2050-03-27T01:00:00Z'))).to.equal(2 * HOUR);
    expect(posixOffsetAt(rule, at('2050-10-30T00:59:59Z'))).to.equal(2 * HOUR);
    expect(posixOffsetAt(rule, at('2050-10-30T01:00:00Z'))).to.equal(HOUR);
  });

  it('when daylight time spans the new year (southern hemisphere), then it holds on both sides of it: NZST-12NZDT,M9.5.0,M4.1.0/3', () => {
    const rule = parsePosixRule('NZST-12NZDT,M9.5.0,M4.1.0/3')!;
    expect(posixOffsetAt(rule, at('2049-12-31T12:30:00Z'))).to.equal(13 * HOUR);
    expect(posixOffsetAt(rule, at('2050-01-01T00:00:00Z'))).to.equal(13 * HOUR);
    expect(posixOffsetAt(rule, at('2050-06-01T00:00:00Z'))).to.equal(12 * HOUR);
  });

  it('when the change times are negative (RFC 8536), then they fall on the day before: <-02>2<-01>,M3.5.0/-1,M10.5.0/0', () => {
    // America/Nuuk: last Sunday of March 2050 is the 27th; -1:00 local standard (-02) is 26 March 23:00 local = 27 March 01:00Z.
    const rule = parsePosixRule('<-02>2<-01>,M3.5.0/-1,M10.5.0/0')!;
    expect(posixOffsetAt(rule, at('2050-03-27T00:59:59Z'))).to.equal(-2 * HOUR);
    expect(posixOffsetAt(rule, at('2050-03-27T01:00:00Z'))).to.equal(-HOUR);
  });

  it('when daylight time runs all year (0/0,J365/25), then it is daylight time on any day', () => {
    const rule = parsePosixRule('EST5EDT,0/0,J365/25')!;
    for (const iso of ['2050-01-01T03:00:00Z', '2050-07-01T00:00:00Z', '2050-12-31T23:00:00Z']) {
      expect(posixOffsetAt(rule, at(iso)), iso).to.equal(-4 * HOUR);
    }
  });

  it('when the day is Jn, then 29 February is not counted; when n, it is', () => {
    const julian = parsePosixRule('AAA0BBB,J60/0,J300/0')!;
    // Leap year 2048: J60 is 1 March.
    expect(posixOffsetAt(julian, at('2048-02-29T23:00:00Z'))).to.equal(0);
    expect(posixOffsetAt(julian, at('2048-03-01T00:00:00Z'))).to.equal(HOUR);
    const zeroBased = parsePosixRule('AAA0BBB,59/0,300/0')!;
    expect(posixOffsetAt(zeroBased, at('2048-02-28T23:59:59Z'))).to.equal(0);
    expect(posixOffsetAt(zeroBased, at('2048-02-29T00:00:00Z'))).to.equal(HOUR);
  });

  it('when the text is not a rule, or has daylight time without dates, then none', () => {
    for (const text of ['', 'CET', '-1', 'CET-1CEST', 'CET-1CEST,M13.5.0,M10.5.0', 'CET-1CEST,M3.5.0', 'A-1']) {
      expect(parsePosixRule(text), text).to.equal(undefined);
    }
  });
});
