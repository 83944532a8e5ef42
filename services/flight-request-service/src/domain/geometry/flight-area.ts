import type { FeatureCollection } from 'geojson';
import type { FieldErrors } from '@dfc/kit/errors';
import { buildFeature, type BuiltFeature } from './feature-geometry.js';
import { readCollection, readFeatureShape, readGeometryType } from './features.js';
import { at, attribute, FieldErrorBag } from './field-errors.js';
import type { AreaPolygon } from './intersect.js';
import { checkPolygonal, type Polygonal } from './polygonal.js';
import { DEFAULT_FLIGHT_AREA_LIMITS, MAX_ZONE_POSITIONS, type FlightAreaLimits } from './limits.js';
import { countPositions, own } from './structure.js';
import { summarise, totalArea, type AreaSummary } from './summary.js';

/*
 * The rules of `flight_area` and of a zone's geometry (PRODUCT.md "Flight
 * requests"). Shape and budgets are checked first by plain code (features.ts,
 * structure.ts), so the geometry libraries only ever see well-formed, bounded
 * input; every failing path is reported at once; nothing here throws.
 */

export { areasIntersect, type AreaPolygon, type BBox } from './intersect.js';
export type { AreaSummary } from './summary.js';
export type { Polygonal } from './polygonal.js';
export { DEFAULT_FLIGHT_AREA_LIMITS, MAX_ZONE_POSITIONS, type FlightAreaLimits } from './limits.js';

export interface CheckedFlightArea {
  /** As stored and returned with include_geometry=true: polygons right-handed, circles as submitted. */
  stored: FeatureCollection;
  /** Every feature as a (Multi)Polygon, circles as 64-gons: what screening and overlap tests use. */
  polygons: AreaPolygon[];
  summary: AreaSummary;
}

export type FlightAreaCheck = { ok: true; area: CheckedFlightArea } | { ok: false; errors: FieldErrors };
export type ZoneGeometryCheck = { ok: true; geometry: Polygonal } | { ok: false; errors: FieldErrors };

export function checkFlightArea(input: unknown, limits: FlightAreaLimits = DEFAULT_FLIGHT_AREA_LIMITS, field = 'flight_area'): FlightAreaCheck {
  return neverThrowing(field, () => checkArea(input, limits, field));
}

export function checkZoneGeometry(input: unknown, field = 'geometry'): ZoneGeometryCheck {
  return neverThrowing(field, () => checkZone(input, field));
}

/** A last guard for what no check foresaw (a getter that throws, a revoked Proxy): a 422, never a crash. */
function neverThrowing<T>(field: string, check: () => T): T | { ok: false; errors: FieldErrors } {
  try {
    return check();
  } catch {
    return { ok: false, errors: { [field]: [`The ${attribute(field)} field is invalid.`] } };
  }
}

function checkArea(input: unknown, limits: FlightAreaLimits, field: string): FlightAreaCheck {
  const errors = new FieldErrorBag();
  const refused = () => ({ ok: false as const, errors: errors.toFieldErrors() });
  const features = readCollection(input, limits, field, errors);
  if (!features) return refused();

  const shapes = features.map((feature, i) => readFeatureShape(feature, at(at(field, 'features'), i), limits, errors));
  const positions = shapes.reduce((sum, shape) => sum + (shape ? countPositions(shape.type, shape.coordinates) : 0), 0);
  if (positions > limits.maxPositions) {
    const limit = limits.maxPositions;
    errors.add(field, `The ${attribute(field)} must not have more than ${limit} positions in all (it has ${positions}).`);
    return refused();
  }

  const built = shapes.map((shape) => (shape ? buildFeature(shape, errors) : null));
  if (!errors.empty) return refused();
  const complete = built as BuiltFeature[];

  const polygons = complete.map((feature) => feature.polygon);
  const areaM2 = totalArea(polygons);
  if (areaM2 > limits.maxAreaM2) {
    const covered = (areaM2 / 1e6).toFixed(2);
    errors.add(field, `The ${attribute(field)} must not cover more than ${limits.maxAreaM2 / 1e6} km² (it covers ${covered} km²).`);
    return refused();
  }
  const stored: FeatureCollection = { type: 'FeatureCollection', features: complete.map((feature) => feature.stored) };
  return { ok: true, area: { stored, polygons, summary: summarise(polygons, areaM2) } };
}

function checkZone(input: unknown, field: string): ZoneGeometryCheck {
  const errors = new FieldErrorBag();
  const refused = () => ({ ok: false as const, errors: errors.toFieldErrors() });
  const type = readGeometryType(input, field, ['Polygon', 'MultiPolygon'], errors) as Polygonal['type'] | null;
  if (!type) return refused();
  const coordinates = own(input as Record<string, unknown>, 'coordinates');
  const positions = countPositions(type, coordinates);
  if (positions > MAX_ZONE_POSITIONS) {
    const limit = MAX_ZONE_POSITIONS;
    errors.add(field, `The ${attribute(field)} must not have more than ${limit} positions (it has ${positions}).`);
    return refused();
  }
  const geometry = checkPolygonal(type, coordinates, field, errors);
  return geometry && errors.empty ? { ok: true, geometry } : refused();
}
