/**
 * Time zones from `Intl` (Node's official builds carry ICU's full zone data). A zone is known when
 * `Intl.DateTimeFormat` accepts its name as spelled: `Intl.supportedValuesOf('timeZone')` lists only
 * ICU's canonical names, without links such as `Asia/Kolkata` or `US/Pacific` and without `Etc/*`.
 */
export class TimeZone {
  private readonly wallClock: Intl.DateTimeFormat;

  constructor(readonly name: string) {
    this.wallClock = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Seconds east of UTC at an instant (seconds since the epoch): the zone's wall clock read as UTC, less the instant. */
  offsetAt(instant: number): number {
    const parts = this.wallClock.formatToParts(new Date(instant * 1000));
    const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((each) => each.type === type)?.value);
    const wallClock = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')) / 1000;
    return wallClock - Math.floor(instant);
  }

  /**
   * The first instant of a local day (year, month 1–12, day, which may run past the month's end).
   * Midnight twice (a change back at 01:00) is its first time; midnight never (a change forward
   * at 00:00) gives the instant of the change, where that day's clock begins.
   */
  startOfDay(year: number, month: number, day: number): Date {
    const midnight = Date.UTC(year, month - 1, day) / 1000;
    const nearby = [...new Set([midnight - DAY, midnight, midnight + DAY].map((at) => this.offsetAt(at)))];
    const instants = nearby.map((offset) => midnight - offset).filter((at) => this.offsetAt(at) === midnight - at);
    if (instants.length > 0) return new Date(Math.min(...instants) * 1000);
    // In a gap: the local clock passes midnight once, between the instants the two offsets name.
    let before = midnight - Math.max(...nearby);
    let after = midnight - Math.min(...nearby);
    while (after - before > 1) {
      const middle = Math.floor((before + after) / 2);
      if (middle + this.offsetAt(middle) >= midnight) after = middle;
      else before = middle;
    }
    return new Date(after * 1000);
  }
}

const DAY = 24 * 60 * 60;

/** The zones ICU knows, each built once by its resolved name (a bounded set): a formatter is costly to make and cheap to reuse. */
class TimeZones {
  private readonly zones = new Map<string, TimeZone>();

  /**
   * Whether the name is a zone or a link (`Europe/Amsterdam`, `US/Pacific`, `UTC`) spelled as the
   * database spells it: `Intl` accepts any case, so a name it resolves to itself in another case
   * (`Europe/AMSTERDAM`) is misspelt. A link resolves to its zone, whose case says nothing of it.
   */
  has(name: string): boolean {
    return this.zone(name) !== undefined;
  }

  /** The named zone, or undefined when there is no such name. */
  zone(name: string): TimeZone | undefined {
    const known = this.zones.get(name);
    if (known !== undefined) return known;
    let resolved: string;
    try {
      resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      return undefined;
    }
    // Offsets (`+01:00`) are accepted by Intl too, but name no zone.
    if (!/^[A-Za-z]/.test(name) || (resolved !== name && resolved.toLowerCase() === name.toLowerCase())) return undefined;
    let zone = this.zones.get(resolved);
    if (zone === undefined) {
      zone = new TimeZone(resolved);
      this.zones.set(resolved, zone);
    }
    return zone;
  }
}

/** The zones every service reads. */
export const timeZones = new TimeZones();
