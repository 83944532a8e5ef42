import { boxRing } from '../flight-requests/box-ring.js';

/**
 * Whole request bodies shown in the document. Each is a valid request as it
 * stands (a test validates them against their schemas and sends them to the
 * running system), except that `operator_uuid` names a made-up operator: use
 * your own. The flight window is tomorrow, so the example never goes stale.
 */
export const EXAMPLE_OPERATOR_UUID = '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d';

export const registerOperatorExample = {
  company_name: 'Skyline Surveys',
  email: 'ops@skyline.example',
  password: 'correct horse battery',
  phone: '+31 20 555 0100',
  operator_registration_number: 'NLD-RP-2026-0042',
  exemption_for_ctr: false,
  timezone: 'Europe/Amsterdam',
};

export const issueOperatorApiKeyExample = { name: 'laptop' };

export const cancelFlightRequestExample = { reason: 'Weather: wind above the aircraft limits.' };

export const amendFlightRequestExample = { max_altitude: 80, purpose: 'Roof inspection, north wing only' };

export const endFlightExample = { reason: 'Landed' };

/** Where, when and for whom the example flight request is sent; each left out keeps the documented value. */
export interface FlightRequestExampleOptions {
  operatorUuid?: string;
  operatorEmail?: string;
  /** Default: tomorrow 10:00 UTC. */
  start?: Date;
  /** Default: an hour after the start. */
  end?: Date;
  /** The south-west corner [lon, lat] of the square flown over, and its side in degrees. */
  corner?: [number, number];
  side?: number;
}

const HOUR_MS = 3_600_000;

/**
 * The example flight request: the document shows it, and the walkthrough, the
 * end-to-end tests and the benchmarks send it, at their own time and place.
 */
export function flightRequestExample(options: FlightRequestExampleOptions = {}): Record<string, unknown> {
  const start = options.start ?? tomorrowAt(10, new Date());
  const end = options.end ?? new Date(start.getTime() + HOUR_MS);
  return {
    operator_uuid: options.operatorUuid ?? EXAMPLE_OPERATOR_UUID,
    operator_name: 'Jane Pilot',
    operator_email: options.operatorEmail ?? 'jane@skyline.example',
    operator_phone: '+31 6 1234 5678',
    operator_company: 'Skyline Surveys',
    start_time: utcSeconds(start),
    end_time: utcSeconds(end),
    max_altitude: 100,
    aircraft_type: 'DJI Matrice 300',
    purpose: 'Roof inspection',
    flight_area: {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: {},
          geometry: {
            type: 'Polygon',
            coordinates: [boxRing(options.corner ?? [5.1, 52.08], options.side ?? 0.01)],
          },
        },
      ],
    },
  };
}

/** The example as the document shows it: the flight window is tomorrow, so it never goes stale. */
export function submitFlightRequestExample(now: Date): Record<string, unknown> {
  return flightRequestExample({ start: tomorrowAt(10, now) });
}

function tomorrowAt(hour: number, now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, hour));
}

/** `2026-12-01T10:00:00Z`: the spec's UTC form, whole seconds. */
function utcSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
