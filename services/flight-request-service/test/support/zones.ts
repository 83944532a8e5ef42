import { square } from './fixtures.js';

/** A zone body for POST/PUT /api/zones over a square (default: a large square around the fixtures' flight area). */
export function zoneBody(overrides: Record<string, unknown> = {}, lon = 4.8, lat = 52.3, sizeDeg = 0.2): Record<string, unknown> {
  return {
    name: 'Test zone',
    type: 'AIRPORT',
    restriction: 'REQ_AUTHORISATION',
    lower_limit_m: 0,
    upper_limit_m: 500,
    authority: 'LVNL',
    geometry: { type: 'Polygon', coordinates: square(lon, lat, sizeDeg) },
    ...overrides,
  };
}
