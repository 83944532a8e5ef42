import { posixOffsetAt } from './posix-rule.js';
import type { ZoneData } from './tzif.js';

/** A named zone's offsets, from its TZif data. Instants are seconds since the epoch. */
export class TimeZone {
  constructor(
    readonly name: string,
    private readonly data: ZoneData,
  ) {}

  /** Seconds east of UTC at an instant. */
  offsetAt(instant: number): number {
    const { transitions, offsets, initialOffset, rule } = this.data;
    const last = transitions.length - 1;
    if (last < 0) return rule === undefined ? initialOffset : posixOffsetAt(rule, instant);
    if (instant < (transitions[0] as number)) return initialOffset;
    if (instant >= (transitions[last] as number)) return rule === undefined ? (offsets[last] as number) : posixOffsetAt(rule, instant);
    let low = 0;
    let high = last;
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      if ((transitions[middle] as number) <= instant) low = middle;
      else high = middle;
    }
    return offsets[low] as number;
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
