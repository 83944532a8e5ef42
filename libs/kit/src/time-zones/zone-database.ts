import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TimeZone } from './time-zone.js';
import { parseTzif } from './tzif.js';

/**
 * The system's time-zone database (the tzdata package: `/usr/share/zoneinfo`, or `TZDIR` as for
 * the C library), read on first use and kept. It replaces ICU's, which `Intl` would load at
 * 7–8 MiB per process for a zone's offsets (docs/performance.md, "Memory"); a zone read here
 * costs its file, a few KiB.
 */
export class ZoneDatabase {
  private names: ReadonlySet<string> | undefined;
  private readonly zones = new Map<string, TimeZone>();

  constructor(private readonly directory: string) {}

  /** Whether the name is one of the database's zones or links (`Europe/Amsterdam`, `US/Pacific`, `UTC`), as spelled there. */
  has(name: string): boolean {
    return this.knownNames().has(name);
  }

  /** The named zone, or undefined when the database has no such name. */
  zone(name: string): TimeZone | undefined {
    if (!this.has(name)) return undefined;
    let zone = this.zones.get(name);
    if (zone === undefined) {
      zone = new TimeZone(name, parseTzif(readFileSync(join(this.directory, name))));
      this.zones.set(name, zone);
    }
    return zone;
  }

  /** Reads the list of names now: a service that needs the database fails at start, not at its first request, when it is missing. */
  check(): void {
    this.knownNames();
  }

  /** tzdata.zi, the database's own source: `Z <zone> …` and `L <target> <link>` lines name everything it knows. */
  private knownNames(): ReadonlySet<string> {
    if (this.names === undefined) {
      const file = join(this.directory, 'tzdata.zi');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new Error(`no time-zone database at ${file} (install tzdata, or set TZDIR): ${(error as Error).message}`, { cause: error });
      }
      this.names = new Set(text.split('\n').flatMap(nameOfLine).map(ownCopy));
    }
    return this.names;
  }
}

function nameOfLine(line: string): string[] {
  const fields = line.split(' ');
  if (fields[0] === 'Z' && fields[1] !== undefined) return [fields[1]];
  if (fields[0] === 'L' && fields[2] !== undefined) return [fields[2]];
  return [];
}

/**
 * A name cut out of the file's text is, to V8, a view into that text (a sliced string): a set of
 * them would keep all 110 KB of tzdata.zi alive for the few KB of names (416 such views in a heap
 * snapshot of flight-request-service). Decoded again from its bytes, it is a string of its own.
 */
function ownCopy(name: string): string {
  return Buffer.from(name, 'utf8').toString('utf8');
}

/** The database every service reads. */
export const timeZones = new ZoneDatabase(process.env['TZDIR'] ?? '/usr/share/zoneinfo');
