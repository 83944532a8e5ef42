import { expect } from 'chai';
import fc from 'fast-check';
import SunCalc from 'suncalc';
import { activeDuring, activeIntervals } from '../../../src/domain/zones/applicability.js';
import { WEEKDAYS, type Applicability, type DailyPeriod, type Weekday } from '../../../src/domain/zones/geo-zone.js';

/*
 * Daily periods against a reference written the other way round: for one
 * instant, which weekday and time of day is it in the period's offset, and does
 * that fall in the period (or in yesterday's, when it runs past midnight)?
 * Windows are drawn around midnight and the 2026 daylight-saving changes
 * (29 March, 25 October), offsets from -12:00 to +14:00.
 */

const DAY = 86_400_000;
const BERN: [number, number] = [7.44, 46.95];

function timeOf(seconds: number, offsetMinutes: number): DailyPeriod['start'] {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(seconds / 3600)).padStart(2, '0');
  const mm = String(Math.floor((seconds % 3600) / 60)).padStart(2, '0');
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return { time: `${hh}:${mm}:00${offset}`, seconds, offset_minutes: offsetMinutes };
}

/** The reference: is `instant` inside the daily period? */
function activeAt(daily: DailyPeriod, instant: number): boolean {
  const start = daily.start as { seconds: number; offset_minutes: number };
  const end = daily.end as { seconds: number };
  const local = instant + start.offset_minutes * 60_000;
  const day = Math.floor(local / DAY);
  const second = (local - day * DAY) / 1000;
  const weekday = (d: number): Weekday => WEEKDAYS[(((d + 3) % 7) + 7) % 7] as Weekday;
  if (end.seconds > start.seconds) return daily.days.includes(weekday(day)) && second >= start.seconds && second < end.seconds;
  return (daily.days.includes(weekday(day)) && second >= start.seconds) || (daily.days.includes(weekday(day - 1)) && second < end.seconds);
}

const anchors = [Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 9, 25, 1), Date.UTC(2026, 11, 31, 23), Date.UTC(2027, 0, 4, 0)];

const dailyArb = fc
  .record({
    days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 7 }),
    start: fc.integer({ min: 0, max: 95 }).map((quarter) => quarter * 900),
    end: fc.integer({ min: 0, max: 96 }).map((quarter) => quarter * 900),
    offset: fc.integer({ min: -48, max: 56 }).map((quarter) => quarter * 15),
  })
  .filter(({ start, end }) => start !== end)
  .map(({ days, start, end, offset }): DailyPeriod => ({ days, start: timeOf(start, offset), end: timeOf(end, offset) }));

const windowArb = fc
  .record({
    anchor: fc.constantFrom(...anchors),
    shift: fc.integer({ min: -3 * 24 * 60, max: 3 * 24 * 60 }),
    length: fc.integer({ min: 1, max: 36 * 60 }),
  })
  .map(({ anchor, shift, length }) => ({ from: anchor + shift * 60_000, to: anchor + (shift + length) * 60_000 }));

describe('zone applicability (property-based)', () => {
  it('when a daily period is screened in any window, then its intervals hold exactly the minutes the reference finds active', () => {
    fc.assert(
      fc.property(dailyArb, windowArb, (daily, { from, to }) => {
        const applicability: Applicability = { permanent: false, periods: [{ start: null, end: null, daily: [daily] }] };
        const intervals = activeIntervals(applicability, BERN, from, to);
        for (let instant = from; instant < to; instant += 15 * 60_000) {
          const inside = intervals.some(([start, end]) => start <= instant && instant < end);
          if (inside !== activeAt(daily, instant)) return false;
        }
        return intervals.every(
          ([start, end], i) => start < end && from <= start && end <= to && (i === 0 || (intervals[i - 1] as readonly number[])[1]! < start),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('when a period has date-times, then nothing outside them is active, and a window meets it exactly when they overlap', () => {
    fc.assert(
      fc.property(
        windowArb,
        fc.integer({ min: -2 * DAY, max: 2 * DAY }),
        fc.integer({ min: 60_000, max: 3 * DAY }),
        ({ from, to }, offset, length) => {
          const start = anchors[0]! + offset;
          const applicability: Applicability = {
            permanent: false,
            periods: [{ start: new Date(start).toISOString(), end: new Date(start + length).toISOString(), daily: [] }],
          };
          return activeDuring(applicability, BERN, from, to) === (start < to && from < start + length);
        },
      ),
    );
  });
});

describe('zone applicability', () => {
  const weekdays: DailyPeriod = { days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], start: timeOf(8 * 3600, 60), end: timeOf(17 * 3600, 60) };
  const nights: DailyPeriod = { days: ['FRI'], start: timeOf(22 * 3600, 60), end: timeOf(6 * 3600, 60) };
  const on = (daily: DailyPeriod): Applicability => ({ permanent: false, periods: [{ start: null, end: null, daily: [daily] }] });

  it('when a zone is active on weekdays 08:00–17:00+01:00, then a Saturday flight misses it and a Monday one meets it in winter and summer alike', () => {
    expect(activeDuring(on(weekdays), BERN, Date.parse('2026-12-05T09:00:00Z'), Date.parse('2026-12-05T10:00:00Z'))).to.equal(false);
    expect(activeIntervals(on(weekdays), BERN, Date.parse('2026-12-07T06:00:00Z'), Date.parse('2026-12-07T08:00:00Z'))).to.deep.equal([
      [Date.parse('2026-12-07T07:00:00Z'), Date.parse('2026-12-07T08:00:00Z')],
    ]);
    // The offset is part of the time: in summer the same period still starts at 07:00 UTC.
    expect(activeIntervals(on(weekdays), BERN, Date.parse('2026-07-06T06:00:00Z'), Date.parse('2026-07-06T08:00:00Z'))).to.deep.equal([
      [Date.parse('2026-07-06T07:00:00Z'), Date.parse('2026-07-06T08:00:00Z')],
    ]);
  });

  it('when a Friday period runs past midnight, then early Saturday is active and early Friday is not', () => {
    expect(activeDuring(on(nights), BERN, Date.parse('2026-12-05T03:00:00Z'), Date.parse('2026-12-05T04:00:00Z'))).to.equal(true);
    expect(activeDuring(on(nights), BERN, Date.parse('2026-12-04T03:00:00Z'), Date.parse('2026-12-04T04:00:00Z'))).to.equal(false);
  });

  it('when a zone is active from sunrise to sunset, then its interval is suncalc’s for the position and the day', () => {
    const daylight: DailyPeriod = { days: ['SUN'], start: { event: 'SR' }, end: { event: 'SS' } };
    const [interval] = activeIntervals(on(daylight), BERN, Date.parse('2026-06-21T00:00:00Z'), Date.parse('2026-06-22T00:00:00Z'));
    const times = SunCalc.getTimes(new Date('2026-06-21T11:30:00Z'), BERN[1], BERN[0]);
    expect(interval?.[0]).to.be.closeTo(times.sunrise.getTime(), 60_000);
    expect(interval?.[1]).to.be.closeTo(times.sunset.getTime(), 60_000);
    expect(activeDuring(on(daylight), BERN, Date.parse('2026-06-21T22:00:00Z'), Date.parse('2026-06-21T23:00:00Z'))).to.equal(false);
  });

  it('when the sun does not set (polar day), then a sunrise-to-sunset zone is active all day rather than never', () => {
    const daylight: DailyPeriod = { days: [...WEEKDAYS], start: { event: 'SR' }, end: { event: 'SS' } };
    expect(activeDuring(on(daylight), [15.6, 78.2], Date.parse('2026-06-21T23:00:00Z'), Date.parse('2026-06-21T23:30:00Z'))).to.equal(true);
  });

  it('when a zone is permanent, then every window meets it; when its only period has ended, then none does', () => {
    expect(activeDuring({ permanent: true }, BERN, 0, 1)).to.equal(true);
    const ended: Applicability = { permanent: false, periods: [{ start: '2020-01-01T00:00:00Z', end: '2021-01-01T00:00:00Z', daily: [] }] };
    expect(activeDuring(ended, BERN, Date.parse('2026-12-01T00:00:00Z'), Date.parse('2026-12-02T00:00:00Z'))).to.equal(false);
  });
});
