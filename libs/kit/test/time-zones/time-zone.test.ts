import { expect } from 'chai';
import fc from 'fast-check';
import { timeZones } from '@dfc/kit/time-zones';

/**
 * ICU's zone data (Intl) is the reference. Zones whose rules differ in kind: half- and
 * quarter-hour offsets, southern daylight time, "negative" daylight time in the source
 * (Dublin), a two-hour change (Troll), midnight changes (Santiago, Havana, Beirut), no
 * daylight time since 2019 (Sao Paulo).
 */
const ZONES = [
  'Europe/Amsterdam', 'America/New_York', 'America/Los_Angeles', 'Australia/Sydney', 'Australia/Lord_Howe',
  'Pacific/Auckland', 'Pacific/Chatham', 'Asia/Tokyo', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns',
  'Europe/Dublin', 'Antarctica/Troll', 'America/Santiago', 'America/Havana', 'Asia/Beirut', 'America/Sao_Paulo',
  'Europe/London', 'America/Nuuk', 'US/Pacific', 'Etc/GMT+5', 'UTC',
];

function icuOffset(zone: string, instant: number): number {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(instant * 1000))
    .find((each) => each.type === 'timeZoneName')?.value;
  const match = /^GMT(?:([+-])(\d\d):(\d\d))?$/.exec(part ?? '');
  if (match === null) throw new Error(`unexpected offset ${part}`);
  return match[1] === undefined ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 3600 + Number(match[3]) * 60);
}

function icuLocal(zone: string, date: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).format(date);
}

const zone = (name: string) => {
  const found = timeZones.zone(name);
  if (found === undefined) throw new Error(`no zone ${name}`);
  return found;
};
const instants = fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2090, 0, 1) / 1000 });

describe('TimeZone', () => {
  it('offsetAt: at any instant from 1990 to 2090, then the offset ICU gives, past the files’ last transitions too', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), instants, (name, instant) => {
        expect(zone(name).offsetAt(instant), `${name} at ${new Date(instant * 1000).toISOString()}`).to.equal(icuOffset(name, instant));
      }),
      { numRuns: 3000 },
    );
  });

  it('startOfDay: on any date, then the instant that local date begins, and one second earlier is the day before', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), instants, (name, instant) => {
        const date = new Date(instant * 1000);
        const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
        const wanted = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        const start = zone(name).startOfDay(year, month, day);
        expect(icuLocal(name, start).slice(0, 10), `${name} ${wanted}`).to.equal(wanted);
        expect(icuLocal(name, new Date(start.getTime() - 1000)).slice(0, 10), `${name} ${wanted}`).to.not.equal(wanted);
      }),
      { numRuns: 2000 },
    );
  });

  it('startOfDay: when the clock goes forward at midnight, then the day begins at the change, at 01:00', () => {
    const start = zone('America/Santiago').startOfDay(2022, 9, 11);
    expect(start.toISOString()).to.equal('2022-09-11T04:00:00.000Z');
    expect(icuLocal('America/Santiago', start)).to.equal('2022-09-11, 01:00:00');
  });

  it('startOfDay: when midnight happens twice (back at 01:00), then the day begins at the first', () => {
    expect(zone('America/Havana').startOfDay(2025, 11, 2).toISOString()).to.equal('2025-11-02T04:00:00.000Z');
  });

  it('startOfDay: when the day runs past the month’s end, then the calendar carries it: 32 January is 1 February', () => {
    expect(zone('Europe/Amsterdam').startOfDay(2026, 1, 32).toISOString()).to.equal('2026-01-31T23:00:00.000Z');
  });
});
