import type { CellClaim } from '../../src/domain/deconfliction/reservation.js';
import { boxRing } from '@dfc/contracts';

/** The Polygon coordinates of a square of `sizeDeg` degrees with its south-west corner at (lon, lat), counter-clockwise. */
export function square(lon: number, lat: number, sizeDeg = 0.01): number[][][] {
  return [boxRing([lon, lat], sizeDeg)];
}

export function featureCollection(...polygons: number[][][][]): Record<string, unknown> {
  return {
    type: 'FeatureCollection',
    features: polygons.map((coordinates) => ({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } })),
  };
}

const HOUR = 3_600_000;

/** Whole seconds in the `Z` form the API takes. */
export function isoZ(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A submission in the shape of the spec's §2.2 example: every field, a
 * Polygon over Amsterdam, a two-hour window starting in an hour.
 */
export function submission(operatorUuid: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Math.ceil((Date.now() + HOUR) / 1000) * 1000);
  return {
    operator_uuid: operatorUuid,
    operator_name: 'Jan de Vries',
    operator_email: 'jan@example.com',
    operator_phone: '+31 20 123 4567',
    operator_company: 'Skyview Drones B.V.',
    operational_authorisation_number: 'NLD-OAT-2026-0042',
    start_time: isoZ(start),
    end_time: isoZ(new Date(start.getTime() + 2 * HOUR)),
    max_altitude: 100,
    aircraft_type: 'multirotor',
    purpose: 'Roof inspection of a warehouse',
    flight_area: featureCollection(square(4.89, 52.37)),
    ...overrides,
  };
}

/** A claim of one AGL volume on the ledger, named `id`, by an operator of its own, over one hour on a small square. */
export function cellClaim(id: string): CellClaim {
  return {
    claim: id,
    request: `request-${id}`,
    operator: `operator-${id}`,
    volume: 0,
    start: new Date('2026-12-02T10:00:00Z'),
    end: new Date('2026-12-02T11:00:00Z'),
    reference: 'AGL',
    lower_m: 0,
    upper_m: 120,
    amsl_lower_m: null,
    amsl_upper_m: null,
    bbox: [4.89, 52.37, 4.891, 52.371],
  };
}
