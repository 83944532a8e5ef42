import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ZoneDatabase, timeZones } from '@dfc/kit/time-zones';

describe('ZoneDatabase', () => {
  it('has: when the name is a zone or a link of the database, as it spells it, then yes', () => {
    for (const name of ['Europe/Amsterdam', 'America/Argentina/Buenos_Aires', 'US/Pacific', 'Asia/Calcutta', 'Asia/Kolkata', 'UTC', 'Etc/GMT-14']) {
      expect(timeZones.has(name), name).to.equal(true);
    }
  });

  it('has: when the name is misspelt, unknown, a file that is no zone, or a path, then no', () => {
    for (const name of ['europe/amsterdam', 'Europe/Atlantis', 'tzdata.zi', 'zone1970.tab', 'posix/Europe/Amsterdam', '../../etc/passwd', '/etc/passwd', '']) {
      expect(timeZones.has(name), name).to.equal(false);
    }
  });

  it('zone: when asked twice, then the file is read once; an unknown name has none', () => {
    expect(timeZones.zone('Asia/Tokyo')).to.equal(timeZones.zone('Asia/Tokyo'));
    expect(timeZones.zone('Asia/Tokyo')?.offsetAt(0)).to.equal(9 * 3600);
    expect(timeZones.zone('Europe/Atlantis')).to.equal(undefined);
  });

  it('check: when the directory holds no database, then the error names it and what to do', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-tzdata-'));
    try {
      expect(() => new ZoneDatabase(empty).check()).to.throw(`no time-zone database at ${join(empty, 'tzdata.zi')} (install tzdata, or set TZDIR)`);
    } finally {
      rmSync(empty, { recursive: true });
    }
  });
});
