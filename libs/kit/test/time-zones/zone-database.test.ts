import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { compactHeap } from '@dfc/kit/service';
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

  it('has: when the database is read, then it keeps the names, not the text of tzdata.zi they were read from', () => {
    const directory = mkdtempSync(join(tmpdir(), 'large-tzdata-'));
    try {
      const zones = Array.from({ length: 100 }, (_, index) => `Z Europe/A_Zone_With_A_Long_Name_${index} 0:19:32 - LMT 1835`);
      const links = Array.from({ length: 100 }, (_, index) => `L Europe/A_Zone_With_A_Long_Name_${index} Europe/A_Link_With_A_Long_Name_${index}`);
      const rules = Array.from({ length: 200_000 }, (_, index) => `R A_Rule_Line_That_Only_Pads_The_File ${1900 + (index % 100)} o - Jun 14 23s 1 S`);
      const text = [...zones, ...rules, ...links].join('\n');
      writeFileSync(join(directory, 'tzdata.zi'), text);
      const database = new ZoneDatabase(directory);
      const before = compactHeap().after;
      database.check();
      const held = compactHeap().after - before;
      expect(database.has('Europe/A_Zone_With_A_Long_Name_99')).to.equal(true);
      expect(database.has('Europe/A_Link_With_A_Long_Name_0')).to.equal(true);
      expect(database.has('A_Rule_Line_That_Only_Pads_The_File')).to.equal(false);
      expect(held, `${held} bytes held after reading a ${text.length}-byte file`).to.be.lessThan(2 ** 20);
    } finally {
      rmSync(directory, { recursive: true });
    }
  });
});
