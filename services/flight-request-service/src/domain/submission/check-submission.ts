import { schemaErrors } from '@dfc/kit/validation';
import { mergeFieldErrors, type FieldErrors } from '@dfc/kit/errors';
import { FlightRequestCreate } from '@dfc/contracts';
import { checkFlightArea, type CheckedFlightArea } from '../geometry/flight-area.js';
import type { StoredVolume } from '../volumes/flight-volume.js';
import { NO_VERTICAL_MODEL, type VerticalModel } from '../zones/vertical.js';
import { checkVolumes } from './check-volumes.js';
import type { SubmissionLimits } from './limits.js';
import { checkTimeWindow } from './time-window.js';

/** A submission that passed every rule, with its times parsed and its area checked. */
export interface ValidSubmission {
  operator_uuid: string;
  operator_name: string;
  operator_email: string;
  operator_phone: string;
  operator_company: string | null;
  operational_authorisation_number: string | null;
  /** With volumes: the earliest start, the latest end and the highest upper limit above the ground of the volumes. */
  start_time: Date;
  end_time: Date;
  max_altitude: number;
  /** As submitted (areas in `area`, one feature each, by index); null for a request of the spec's fields alone. */
  volumes?: StoredVolume[] | null;
  /** As sent; its category is derived where it is read (`aircraftCategoryOf`). */
  aircraft_type: string;
  purpose: string;
  area: CheckedFlightArea;
}

export type SubmissionCheck = { ok: true; submission: ValidSubmission } | { ok: false; errors: FieldErrors };

/**
 * Every rule at once, so the 422 names every failing field: the schema's shape,
 * the configurable bounds and time rules, and the flight area's geometry — or,
 * with `volumes`, theirs (check-volumes.ts), from which the spec's fields follow.
 */
export function checkSubmission(body: unknown, limits: SubmissionLimits, now: Date, vertical: VerticalModel = NO_VERTICAL_MODEL): SubmissionCheck {
  let errors = schemaErrors(FlightRequestCreate, body);
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const valid = (field: string) => (errors[field] ? undefined : input[field]);

  // The configured ceiling is the domain's; an integer out of range gets one message naming both bounds,
  // in place of the schema's (minimum 1, int32).
  const altitude = input['max_altitude'];
  if (Number.isInteger(altitude) && ((altitude as number) < 1 || (altitude as number) > limits.maxAltitudeM)) {
    errors['max_altitude'] = [`The max altitude field must be between 1 and ${limits.maxAltitudeM}.`];
  }
  const fields = {
    operator_uuid: input['operator_uuid'] as string,
    operator_name: input['operator_name'] as string,
    operator_email: input['operator_email'] as string,
    operator_phone: input['operator_phone'] as string,
    operator_company: (input['operator_company'] as string | null | undefined) ?? null,
    operational_authorisation_number: (input['operational_authorisation_number'] as string | null | undefined) ?? null,
    aircraft_type: input['aircraft_type'] as string,
    purpose: input['purpose'] as string,
  };

  if (Object.hasOwn(input, 'volumes')) {
    const volumes = checkVolumes(input, errors, limits, now, vertical);
    errors = mergeFieldErrors(errors, volumes.errors);
    if (Object.keys(errors).length > 0 || !volumes.checked) return { ok: false, errors };
    const { area, start, end, maxAltitudeM } = volumes.checked;
    return {
      ok: true,
      submission: { ...fields, start_time: start, end_time: end, max_altitude: maxAltitudeM, volumes: volumes.checked.volumes, area },
    };
  }

  const window = checkTimeWindow(asString(valid('start_time')), asString(valid('end_time')), limits, now);
  errors = mergeFieldErrors(errors, window.errors);
  const area = 'flight_area' in input ? checkFlightArea(input['flight_area'], limits.flightArea, 'flight_area') : undefined;
  if (area && !area.ok) errors = mergeFieldErrors(errors, area.errors);

  if (Object.keys(errors).length > 0 || !area?.ok || !window.start || !window.end) return { ok: false, errors };
  return {
    ok: true,
    submission: { ...fields, start_time: window.start, end_time: window.end, max_altitude: altitude as number, volumes: null, area: area.area },
  };
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
