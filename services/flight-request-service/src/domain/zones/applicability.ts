import SunCalc from 'suncalc';
import { WEEKDAYS, type Applicability, type DailyPeriod, type DayMoment, type DaylightEvent, type TimePeriod, type Weekday } from './geo-zone.js';

/*
 * When a zone is active (ED-269 `applicability`, ED-318 `limitedApplicability`):
 * permanently, or in periods between two instants, within them on weekdays from
 * a time of day (with its UTC offset) or a daylight event to another. Times
 * carry offsets, so a period is a set of instants whatever the clocks do at a
 * daylight-saving change; a weekday is the day in that offset (for daylight
 * events alone, in the position's mean solar time). Daylight events come from
 * suncalc (the well-kept solar library): SR/SS sunrise and sunset, BMCT/EECT
 * the begin of morning and end of evening civil twilight. Where the event does
 * not happen that day (polar day or night) the whole day counts as active: a
 * restriction is never dropped for want of a sunrise.
 */

const DAY_MS = 86_400_000;
/** A daily period ends at most a day after it starts; a window is widened by this to catch periods begun the day before. */
const LOOK_BACK_DAYS = 2;

export type Interval = readonly [start: number, end: number];

/** The instants in [from, to) at which the zone is active at `position` ([lon, lat]), as sorted, disjoint intervals. */
export function activeIntervals(applicability: Applicability, position: readonly [number, number], from: number, to: number): Interval[] {
  if (!(from < to)) return [];
  if (applicability.permanent) return [[from, to]];
  const pieces = applicability.periods.flatMap((period) => periodIntervals(period, position, from, to));
  return merge(pieces);
}

/** True when the zone is active at some instant of [from, to). */
export function activeDuring(applicability: Applicability, position: readonly [number, number], from: number, to: number): boolean {
  return activeIntervals(applicability, position, from, to).length > 0;
}

/** The earliest start and latest end of its periods (null: open), for a database prefilter. */
export function applicabilityBounds(applicability: Applicability): { start: number | null; end: number | null } {
  if (applicability.permanent || applicability.periods.length === 0) return { start: null, end: null };
  const starts = applicability.periods.map((period) => (period.start === null ? null : Date.parse(period.start)));
  const ends = applicability.periods.map((period) => (period.end === null ? null : Date.parse(period.end)));
  return {
    start: starts.includes(null) ? null : Math.min(...(starts as number[])),
    end: ends.includes(null) ? null : Math.max(...(ends as number[])),
  };
}

function periodIntervals(period: TimePeriod, position: readonly [number, number], from: number, to: number): Interval[] {
  const lower = Math.max(from, period.start === null ? -Infinity : Date.parse(period.start));
  const upper = Math.min(to, period.end === null ? Infinity : Date.parse(period.end));
  if (!(lower < upper)) return [];
  if (period.daily.length === 0) return [[lower, upper]];
  return period.daily.flatMap((daily) => dailyIntervals(daily, position, lower, upper));
}

function dailyIntervals(daily: DailyPeriod, position: readonly [number, number], from: number, to: number): Interval[] {
  const frameMinutes = frameOffsetMinutes(daily, position[0]);
  const frame = frameMinutes * 60_000;
  const firstDay = Math.floor((from + frame) / DAY_MS) - LOOK_BACK_DAYS;
  const lastDay = Math.floor((to + frame) / DAY_MS);
  const out: Interval[] = [];
  for (let day = firstDay; day <= lastDay; day += 1) {
    if (!daily.days.includes(weekdayOf(day))) continue;
    const start = momentOn(daily.start, day, position, 'start');
    let end = momentOn(daily.end, day, position, 'end');
    if (end <= start) end = momentOn(daily.end, day + 1, position, 'end');
    const clipped: Interval = [Math.max(start, from), Math.min(end, to)];
    if (clipped[0] < clipped[1]) out.push(clipped);
  }
  return out;
}

/** The offset whose calendar names the weekday: the start's time, else the end's, else mean solar time at the longitude. */
function frameOffsetMinutes(daily: DailyPeriod, longitude: number): number {
  if ('time' in daily.start) return daily.start.offset_minutes;
  if ('time' in daily.end) return daily.end.offset_minutes;
  return Math.round((longitude / 15) * 60);
}

/** Day numbers count from 1970-01-01, a Thursday. */
function weekdayOf(day: number): Weekday {
  const index = (((day + 3) % 7) + 7) % 7;
  return WEEKDAYS[index] as Weekday;
}

/** The instant of a moment on day `day` (days since the epoch in the moment's own offset, or in solar time). */
function momentOn(moment: DayMoment, day: number, position: readonly [number, number], side: 'start' | 'end'): number {
  if ('time' in moment) return day * DAY_MS + moment.seconds * 1000 - moment.offset_minutes * 60_000;
  const [longitude, latitude] = position;
  const solarMidnight = day * DAY_MS - (longitude / 15) * 3_600_000;
  const times = SunCalc.getTimes(new Date(solarMidnight + DAY_MS / 2), latitude, longitude);
  const instant = eventTime(times, moment.event).getTime();
  if (Number.isFinite(instant)) return instant;
  return side === 'start' ? solarMidnight : solarMidnight + DAY_MS;
}

function eventTime(times: SunCalc.GetTimesResult, event: DaylightEvent): Date {
  switch (event) {
    case 'BMCT':
      return times.dawn;
    case 'SR':
      return times.sunrise;
    case 'SS':
      return times.sunset;
    case 'EECT':
      return times.dusk;
  }
}

function merge(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
