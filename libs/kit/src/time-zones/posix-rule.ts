/**
 * The POSIX TZ rule at the end of a TZif file (RFC 8536 §3.3, with its extensions: rule times
 * from -167 to 167 hours). It gives a zone's offset after its last listed transition, which
 * for files built "slim" is most of the present, and for every file the years past 2037.
 *
 *   CET-1CEST,M3.5.0,M10.5.0/3    <+13>-13    EST5EDT,M3.2.0,M11.1.0    <-03>3<-02>,M3.5.0/-2,M10.5.0/-1
 */
export interface PosixRule {
  /** Seconds east of UTC outside daylight time. */
  standardOffset: number;
  daylight?: {
    /** Seconds east of UTC during daylight time. */
    offset: number;
    /** Entered at this date and local standard time... */
    start: RuleDate;
    /** ...and left at this one, in local daylight time. */
    end: RuleDate;
  };
}

/** A day of the year as the rule names it, and the local time of the change on it, in seconds. */
type RuleDate =
  | { kind: 'julian-no-leap'; day: number; time: number }
  | { kind: 'zero-based'; day: number; time: number }
  | { kind: 'month-week-day'; month: number; week: number; weekday: number; time: number };

const NAME = String.raw`(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)`;
const OFFSET = String.raw`[+-]?\d{1,2}(?::\d{2}(?::\d{2})?)?`;
const DATE = String.raw`(?:J\d{1,3}|\d{1,3}|M\d{1,2}\.\d\.\d)(?:/[+-]?\d{1,3}(?::\d{2}(?::\d{2})?)?)?`;
const RULE = new RegExp(`^${NAME}(${OFFSET})(?:(${NAME})(${OFFSET})?(?:,(${DATE}),(${DATE}))?)?$`);

/** The rule, or undefined when the text is not one this reader takes (daylight time with no dates is left to POSIX's implementations). */
export function parsePosixRule(text: string): PosixRule | undefined {
  const match = RULE.exec(text);
  if (match === null) return undefined;
  const [, standard, daylightName, daylightOffset, start, end] = match;
  const standardOffset = -seconds(standard as string);
  if (daylightName === undefined) return { standardOffset };
  if (start === undefined || end === undefined) return undefined;
  const offset = daylightOffset === undefined ? standardOffset + 3600 : -seconds(daylightOffset);
  const dates = [ruleDate(start), ruleDate(end)];
  if (dates[0] === undefined || dates[1] === undefined) return undefined;
  return { standardOffset, daylight: { offset, start: dates[0], end: dates[1] } };
}

/** The offset in effect at an instant (seconds since the epoch). */
export function posixOffsetAt(rule: PosixRule, instant: number): number {
  const daylight = rule.daylight;
  if (daylight === undefined) return rule.standardOffset;
  const year = new Date(instant * 1000).getUTCFullYear();
  // The latest change at or before the instant decides; the years either side cover local years
  // that begin or end on the other side of UTC's new year. Of two at the same instant, the later
  // year's decides: daylight time that ends as the next year's begins runs all year (RFC 8536 §3.3.1).
  let latest: { at: number; offset: number } | undefined;
  for (const y of [year - 1, year, year + 1]) {
    const changes = [
      { at: localDayStart(y, daylight.start) + daylight.start.time - rule.standardOffset, offset: daylight.offset },
      { at: localDayStart(y, daylight.end) + daylight.end.time - daylight.offset, offset: rule.standardOffset },
    ];
    for (const change of changes) {
      if (change.at <= instant && (latest === undefined || change.at >= latest.at)) latest = change;
    }
  }
  return latest?.offset ?? rule.standardOffset;
}

/** Seconds since the epoch of the (UTC-reckoned) midnight that begins the rule's day in a year. */
function localDayStart(year: number, date: RuleDate): number {
  const januaryFirst = Date.UTC(year, 0, 1) / 1000;
  switch (date.kind) {
    case 'zero-based':
      return januaryFirst + date.day * DAY;
    case 'julian-no-leap':
      // Day 60 is always 1 March: 29 February is never counted.
      return januaryFirst + (date.day - 1 + (isLeap(year) && date.day >= 60 ? 1 : 0)) * DAY;
    case 'month-week-day': {
      const first = new Date(Date.UTC(year, date.month - 1, 1));
      const firstMatching = 1 + ((date.weekday - first.getUTCDay() + 7) % 7);
      const lastDay = new Date(Date.UTC(year, date.month, 0)).getUTCDate();
      let day = firstMatching + (date.week - 1) * 7;
      // Week 5 is the month's last such weekday.
      while (day > lastDay) day -= 7;
      return Date.UTC(year, date.month - 1, day) / 1000;
    }
  }
}

function ruleDate(text: string): RuleDate | undefined {
  const [day, time] = text.split('/') as [string, string | undefined];
  const at = time === undefined ? 2 * HOUR : seconds(time);
  if (day.startsWith('J')) {
    const n = Number(day.slice(1));
    return n >= 1 && n <= 365 ? { kind: 'julian-no-leap', day: n, time: at } : undefined;
  }
  if (day.startsWith('M')) {
    const [month, week, weekday] = day.slice(1).split('.').map(Number) as [number, number, number];
    const valid = month >= 1 && month <= 12 && week >= 1 && week <= 5 && weekday <= 6;
    return valid ? { kind: 'month-week-day', month, week, weekday, time: at } : undefined;
  }
  const n = Number(day);
  return n <= 365 ? { kind: 'zero-based', day: n, time: at } : undefined;
}

/** `[+-]hh[:mm[:ss]]` in seconds, the sign as written. */
function seconds(text: string): number {
  const sign = text.startsWith('-') ? -1 : 1;
  const [hours = 0, minutes = 0, secs = 0] = text.replace(/^[+-]/, '').split(':').map(Number);
  return sign * (hours * HOUR + minutes * 60 + secs);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const HOUR = 3600;
const DAY = 24 * HOUR;
