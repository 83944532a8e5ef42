import { timeZones } from '@dfc/kit/time-zones';
import type { FieldErrors } from '@dfc/kit/errors';
import { FLIGHT_REQUEST_STATUSES, type FlightRequestStatus } from '@dfc/contracts';

/** The instants a date filter selects: flight windows overlapping [from, until). */
export interface DateWindow {
  from: Date | null;
  until: Date | null;
}

export interface ListFilter {
  statuses: FlightRequestStatus[] | null;
  window: DateWindow;
}

/**
 * PRODUCT.md "List": statuses are case-insensitive and comma-separated, each a
 * known status; dates are whole days in the operator's timezone, from_date at
 * 00:00 to the end of to_date (24:00), and to_date may not precede from_date.
 */
export function parseListFilter(
  query: { status?: string; from_date?: string; to_date?: string },
  timezone: string,
): { ok: true; filter: ListFilter } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const statuses = query.status === undefined ? null : parseStatuses(query.status);
  if (statuses === undefined) {
    errors['status'] = [`The selected status is invalid. Allowed values: ${FLIGHT_REQUEST_STATUSES.join(', ')}.`];
  }
  if (query.from_date !== undefined && query.to_date !== undefined && query.to_date < query.from_date) {
    errors['to_date'] = ['The to date field must be a date after or equal to from date.'];
  }
  if (Object.keys(errors).length > 0 || statuses === undefined) return { ok: false, errors };
  return { ok: true, filter: { statuses, window: dateWindow(query.from_date, query.to_date, timezone) } };
}

function parseStatuses(text: string): FlightRequestStatus[] | undefined {
  const wanted = text.split(',').map((part) => part.trim().toLowerCase());
  const found = wanted.map((name) => FLIGHT_REQUEST_STATUSES.find((status) => status.toLowerCase() === name));
  if (found.some((status) => status === undefined)) return undefined;
  return [...new Set(found as FlightRequestStatus[])];
}

/** Dates are YYYY-MM-DD already checked by the schema; an unknown zone falls back to UTC. */
export function dateWindow(fromDate: string | undefined, toDate: string | undefined, timezone: string): DateWindow {
  const dayStart = dayStartIn(timezone);
  return {
    from: fromDate === undefined ? null : dayStart(fromDate, 0),
    until: toDate === undefined ? null : dayStart(toDate, 1),
  };
}

/** When a day (plus some days) begins in a zone: UTC days are plain arithmetic, a zone's come from its rules. */
function dayStartIn(timezone: string): (date: string, plusDays: number) => Date {
  const zone = timezone === 'UTC' ? undefined : timeZones.zone(timezone);
  if (zone === undefined) {
    return (date, plusDays) => new Date(Date.parse(`${date}T00:00:00Z`) + plusDays * DAY_MS);
  }
  return (date, plusDays) => {
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    return zone.startOfDay(year, month, day + plusDays);
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;
