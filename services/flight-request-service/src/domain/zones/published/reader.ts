import { ZONE_ID_PATTERN } from '@dfc/contracts';
import { FieldErrorBag } from '../../geometry/field-errors.js';
import { isRecord, own } from '../../geometry/structure.js';
import type { DayMoment, LangText } from '../geo-zone.js';

/*
 * Reading one published zone: every value is checked where it sits, and each
 * refusal names its JSON path and the zone's identifier, so an authority can
 * find it in its own file. Nothing unreadable is dropped or guessed: a time
 * that does not parse is an error, never "always".
 */

export const SHORT_TEXT_MAX = 200;
export const LONG_TEXT_MAX = 1000;
/** extendedProperties are kept as published; this bounds what one zone may carry there, as JSON text. */
export const EXTENDED_PROPERTIES_MAX_CHARS = 10_000;

const ID_PATTERN = new RegExp(ZONE_ID_PATTERN);
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export class ZoneReader {
  identifier: string | null = null;
  /** Refusals so far: what tells a caller whether the part it read was whole. */
  failures = 0;

  constructor(
    readonly errors: FieldErrorBag,
    readonly base: string,
  ) {}

  path(...keys: Array<string | number>): string {
    return [this.base, ...keys].filter((key) => key !== '').join('.');
  }

  fail(path: string, message: string): void {
    this.failures += 1;
    const zone = this.identifier ? ` (zone ${this.identifier})` : '';
    this.errors.add(path, `The ${path} field${zone} ${message}`);
  }

  string(value: unknown, path: string, opts: { required?: boolean; max?: number } = {}): string | null {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(path, 'is required.');
      return null;
    }
    if (typeof value !== 'string') return (this.fail(path, 'must be a string.'), null);
    const text = value.trim();
    if (opts.required && text === '') return (this.fail(path, 'is required.'), null);
    if (opts.max !== undefined && text.length > opts.max) return (this.fail(path, `must not be longer than ${opts.max} characters.`), null);
    return text;
  }

  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[], required = true): T | null {
    if ((value === undefined || value === null) && !required) return null;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.fail(path, `must be one of: ${allowed.join(', ')}.`);
    return null;
  }

  number(value: unknown, path: string): number | null {
    const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof parsed === 'number' && Number.isFinite(parsed)) return parsed;
    this.fail(path, 'must be a number.');
    return null;
  }

  /** ED-318's `[{ text, lang }]`. */
  texts(value: unknown, path: string, max = SHORT_TEXT_MAX): LangText[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) return (this.fail(path, 'must be a list of { text, lang }.'), []);
    const out: LangText[] = [];
    value.forEach((item, index) => {
      if (!isRecord(item)) return this.fail(this.pathIn(path, index), 'must be an object with text and lang.');
      const text = this.string(own(item, 'text'), this.pathIn(path, index, 'text'), { required: true, max });
      const lang = this.string(own(item, 'lang'), this.pathIn(path, index, 'lang'), { required: true, max: 35 });
      if (text !== null && lang !== null) out.push({ text, lang });
    });
    return out;
  }

  /** ED-269's plain strings, kept as a text of no stated language. */
  plainText(value: unknown, path: string, max = SHORT_TEXT_MAX): LangText[] {
    const text = this.string(value, path, { max });
    return text === null || text === '' ? [] : [{ text, lang: 'und' }];
  }

  pathIn(path: string, ...keys: Array<string | number>): string {
    return [path, ...keys].join('.');
  }

  /** An RFC 3339 date-time with an offset that names a real instant (`23:59:60`, `02-30` and the like are refused). */
  dateTime(value: unknown, path: string): string | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') return (this.fail(path, 'must be a date-time with an offset.'), null);
    const match = DATE_TIME.exec(value);
    const instant = Date.parse(value);
    if (!match || !Number.isFinite(instant) || !realCalendar(match)) {
      this.fail(path, 'must be a valid date-time with an offset, such as 2026-06-20T08:00:00+02:00.');
      return null;
    }
    return value;
  }

  /** A time of day with its UTC offset (`08:00:00+01:00`, `17:30Z`). */
  time(value: unknown, path: string): DayMoment | null {
    const match = typeof value === 'string' ? TIME.exec(value) : null;
    const [hours, minutes, seconds] = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [NaN, NaN, NaN];
    const valid = match && (hours < 24 || (hours === 24 && minutes === 0 && seconds === 0)) && minutes < 60 && seconds < 60;
    if (!match || !valid) return (this.fail(path, 'must be a valid time of day, such as 08:00:00+01:00.'), null);
    if (match[4] === undefined) return (this.fail(path, 'must carry a UTC offset, such as 08:00:00+01:00 or 06:00:00Z.'), null);
    return { time: value as string, seconds: hours * 3600 + minutes * 60 + seconds, offset_minutes: offsetMinutes(match[4]) };
  }

  zoneId(country: string | null, identifier: string | null, path: string): string | null {
    if (country === null || identifier === null) return null;
    const id = `${country}.${identifier}`;
    if (!ID_PATTERN.test(id)) {
      this.fail(path, 'must be letters, digits, dots, underscores, colons or hyphens, to name the zone in a URL.');
      return null;
    }
    return id;
  }
}

function offsetMinutes(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
}

/** Date.parse rolls `02-30` over into March: the fields must name a real day and time. */
function realCalendar(match: RegExpExecArray): boolean {
  const [year, month, day, hours, minutes, seconds] = [1, 2, 3, 4, 5, 6].map((i) => Number(match[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hours < 24 && minutes < 60 && seconds < 60;
}

/** The first text in English, else the first: what findings and logs name the zone by. */
export function preferredText(texts: LangText[]): string | null {
  return (texts.find((text) => text.lang.toLowerCase().startsWith('en')) ?? texts[0])?.text ?? null;
}
