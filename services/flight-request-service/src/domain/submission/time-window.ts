import type { FieldErrors } from '@dfc/kit/errors';
import type { SubmissionLimits } from './limits.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * The instant an RFC 3339 UTC timestamp (`…Z`) names; null when it names none (30 February,
 * hour 24) or is not of that form. Date's own ISO parser does the work: it rolls an impossible
 * day over into the next month, so an instant that does not print back as written is refused.
 */
export function parseUtcInstant(text: string): Date | null {
  const instant = new Date(text);
  if (Number.isNaN(instant.getTime()) || !text.endsWith('Z')) return null;
  return instant.toISOString().slice(0, 19) === text.slice(0, 19) ? instant : null;
}

/**
 * The time rules of a flight window: end after start, start not more than the
 * grace period in the past and not too far ahead, and a bounded duration.
 * Inputs that failed the schema are passed as undefined and not checked again.
 */
export function checkTimeWindow(
  startText: string | undefined,
  endText: string | undefined,
  limits: SubmissionLimits,
  now: Date,
): { errors: FieldErrors; start: Date | null; end: Date | null } {
  const errors: FieldErrors = {};
  const start = startText === undefined ? null : parseUtcInstant(startText);
  const end = endText === undefined ? null : parseUtcInstant(endText);
  if (startText !== undefined && !start) errors['start_time'] = ['The start time field must be a valid date.'];
  if (endText !== undefined && !end) errors['end_time'] = ['The end time field must be a valid date.'];
  if (start) {
    if (start.getTime() < now.getTime() - limits.startGraceMinutes * MINUTE_MS) {
      add(errors, 'start_time', `The start time field must not be more than ${limits.startGraceMinutes} minutes in the past.`);
    }
    if (start.getTime() > now.getTime() + limits.maxStartAheadDays * DAY_MS) {
      add(errors, 'start_time', `The start time field must not be more than ${limits.maxStartAheadDays} days in the future.`);
    }
  }
  if (start && end) {
    if (end.getTime() <= start.getTime()) {
      add(errors, 'end_time', 'The end time field must be a date after start time.');
    } else if (end.getTime() - start.getTime() > limits.maxDurationHours * HOUR_MS) {
      add(errors, 'end_time', `The flight window must not be longer than ${limits.maxDurationHours} hours.`);
    }
  }
  return { errors, start, end };
}

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}
