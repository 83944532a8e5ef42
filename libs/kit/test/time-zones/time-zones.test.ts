import { expect } from 'chai';
import fc from 'fast-check';
import { timeZones } from '@dfc/kit/time-zones';

/**
 * Zones whose rules differ in kind: half- and quarter-hour offsets, southern daylight time,
 * "negative" daylight time in the source (Dublin), a two-hour change (Troll), midnight changes
 * (Santiago, Havana, Beirut), no daylight time since 2019 (Sao Paulo), links.
 */
const ZONES = [
  'Europe/Amsterdam',
  'America/New_York',
  'America/Los_Angeles',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Auckland',
  'Pacific/Chatham',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Europe/Dublin',
  'Antarctica/Troll',
  'America/Santiago',
  'America/Havana',
  'Asia/Beirut',
  'America/Sao_Paulo',
  'Europe/London',
  'America/Nuuk',
  'US/Pacific',
  'Etc/GMT+5',
  'UTC',
];

function icuLocal(zone: string, date: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(date);
}

const zone = (name: string) => {
  const found = timeZones.zone(name);
  if (found === undefined) throw new Error(`no zone ${name}`);
  return found;
};
const instants = fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2090, 0, 1) / 1000 });

describe('timeZones', () => {
  it('has: when the name is a zone or a link, as the database spells it, then yes', () => {
    for (const name of [
      'Europe/Amsterdam',
      'America/Argentina/Buenos_Aires',
      'US/Pacific',
      'Asia/Calcutta',
      'Asia/Kolkata',
      'Europe/Kyiv',
      'UTC',
      'Etc/UTC',
      'Etc/GMT-14',
    ]) {
      expect(timeZones.has(name), name).to.equal(true);
    }
  });

  it('has: when the name is misspelt, unknown, an offset, a file that is no zone, or a path, then no', () => {
    for (const name of [
      'europe/amsterdam',
      'Europe/AMSTERDAM',
      'Europe/Atlantis',
      '+01:00',
      'tzdata.zi',
      'zone1970.tab',
      'posix/Europe/Amsterdam',
      '../../etc/passwd',
      '/etc/passwd',
      '',
    ]) {
      expect(timeZones.has(name), name).to.equal(false);
    }
  });

  it('zone: when asked twice, or by a link, then the same zone; an unknown name has none', () => {
    expect(timeZones.zone('Asia/Tokyo')).to.equal(timeZones.zone('Asia/Tokyo'));
    expect(timeZones.zone('US/Pacific')).to.equal(timeZones.zone('America/Los_Angeles'));
    expect(timeZones.zone('Europe/Atlantis')).to.equal(undefined);
  });
});

describe('TimeZone', () => {
  it('offsetAt: on either side of a change, then the offset of the rules in force', () => {
    const cases: [string, string, number][] = [
      ['Europe/Amsterdam', '2026-03-29T00:59:59Z', 3600],
      ['Europe/Amsterdam', '2026-03-29T01:00:00Z', 7200],
      ['Europe/Amsterdam', '2026-10-25T00:59:59Z', 7200],
      ['Europe/Amsterdam', '2026-10-25T01:00:00Z', 3600],
      ['Australia/Lord_Howe', '2026-01-15T00:00:00Z', 11 * 3600],
      ['Australia/Lord_Howe', '2026-07-15T00:00:00Z', 10.5 * 3600],
      ['Pacific/Chatham', '2026-01-15T00:00:00Z', 13.75 * 3600],
      ['Asia/Kathmandu', '2026-07-15T00:00:00Z', 5.75 * 3600],
      ['Antarctica/Troll', '2026-07-15T00:00:00Z', 2 * 3600],
      ['Antarctica/Troll', '2026-12-15T00:00:00Z', 0],
      ['America/Sao_Paulo', '2026-01-15T00:00:00Z', -3 * 3600],
      ['Etc/GMT+5', '2026-07-15T00:00:00Z', -5 * 3600],
      ['UTC', '2026-07-15T00:00:00Z', 0],
    ];
    for (const [name, at, offset] of cases) expect(zone(name).offsetAt(Date.parse(at) / 1000), `${name} at ${at}`).to.equal(offset);
  });

  it('offsetAt: at any instant from 1990 to 2090, then the wall clock less the offset is the instant', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), instants, (name, instant) => {
        const local = icuLocal(name, new Date(instant * 1000)).replace(', ', 'T');
        expect(Date.parse(`${local}Z`) / 1000 - zone(name).offsetAt(instant), `${name} at ${new Date(instant * 1000).toISOString()}`).to.equal(
          instant,
        );
      }),
      { numRuns: 1000 },
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
      { numRuns: 1000 },
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
