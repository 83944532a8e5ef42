import type { Feature, FeatureCollection, Point } from 'geojson';
import type { FieldErrors } from '@dfc/kit';
import { circlePolygon } from './circle-area.js';
import { at, attribute, FieldErrorBag } from './field-errors.js';
import { checkPolygonal, type Polygonal } from './polygonal.js';
import { countPositions, isRecord, own, readPosition, type AreaGeometryType } from './structure.js';
import { coveredArea, summarise, type AreaSummary } from './summary.js';
import type { AreaPolygon } from './intersect.js';

/*
 * The rules of `flight_area` and of a zone's geometry (PRODUCT.md "Flight
 * requests"). Structure and budgets are checked first by plain code (structure.ts),
 * so the geometry libraries only ever see well-formed, bounded input; every
 * failing path is reported at once; nothing here throws, whatever the input.
 */

export { areasIntersect, type AreaPolygon, type BBox } from './intersect.js';
export type { AreaSummary } from './summary.js';

export interface FlightAreaLimits {
  maxFeatures: number;
  maxPositions: number;
  maxAreaM2: number;
  maxRadiusM: number;
}

/** PRODUCT.md: 1..50 features, 10,000 positions, 1,000 km², circles up to 5,000 m. */
export const DEFAULT_FLIGHT_AREA_LIMITS: FlightAreaLimits = {
  maxFeatures: 50,
  maxPositions: 10_000,
  maxAreaM2: 1_000_000_000,
  maxRadiusM: 5000,
};

/** A zone may be a detailed boundary, but still bounded so hostile input stays cheap. */
export const MAX_ZONE_POSITIONS = 100_000;

export interface CheckedFlightArea {
  /** As stored and returned with include_geometry=true: polygons right-handed, circles (Point + radius_m) as submitted. */
  stored: FeatureCollection;
  /** Every feature as a (Multi)Polygon, circles as 64-gons: what screening and overlap tests use. */
  polygons: AreaPolygon[];
  summary: AreaSummary;
}

export type FlightAreaCheck = { ok: true; area: CheckedFlightArea } | { ok: false; errors: FieldErrors };
export type ZoneGeometryCheck = { ok: true; geometry: Polygonal } | { ok: false; errors: FieldErrors };

const AREA_GEOMETRY_TYPES: readonly AreaGeometryType[] = ['Polygon', 'MultiPolygon', 'Point'];
const ZONE_GEOMETRY_TYPES: readonly AreaGeometryType[] = ['Polygon', 'MultiPolygon'];

export function checkFlightArea(
  input: unknown,
  limits: FlightAreaLimits = DEFAULT_FLIGHT_AREA_LIMITS,
  field = 'flight_area',
): FlightAreaCheck {
  return neverThrowing(field, () => checkArea(input, limits, field));
}

export function checkZoneGeometry(input: unknown, field = 'geometry'): ZoneGeometryCheck {
  return neverThrowing(field, () => checkZone(input, field));
}

/** A last guard for what no check foresaw (a getter that throws, a revoked Proxy): a 422, never a crash. */
function neverThrowing<T>(field: string, check: () => T | { ok: false; errors: FieldErrors }) {
  try {
    return check();
  } catch {
    return { ok: false as const, errors: { [field]: [`The ${attribute(field)} field is invalid.`] } };
  }
}

/** A feature whose shape passed, before its coordinates are read. */
interface FeatureShape {
  path: string;
  type: AreaGeometryType;
  coordinates: unknown;
  properties: Record<string, unknown>;
  radiusM: number | null;
  id: string | number | undefined;
}

function checkArea(input: unknown, limits: FlightAreaLimits, field: string): FlightAreaCheck {
  const errors = new FieldErrorBag();
  const features = readCollection(input, limits, field, errors);
  if (!features) return { ok: false, errors: errors.toFieldErrors() };

  const shapes = features.map((feature, i) => readFeatureShape(feature, at(at(field, 'features'), i), limits, errors));
  const positions = shapes.reduce((sum, shape) => sum + (shape ? countPositions(shape.type, shape.coordinates) : 0), 0);
  if (positions > limits.maxPositions) {
    errors.add(field, `The ${attribute(field)} must not have more than ${limits.maxPositions} positions in all (it has ${positions}).`);
    return { ok: false, errors: errors.toFieldErrors() };
  }

  const built = shapes.map((shape) => (shape ? buildFeature(shape, errors) : null));
  if (!errors.empty) return { ok: false, errors: errors.toFieldErrors() };
  const complete = built as BuiltFeature[];

  const polygons = complete.map((feature) => feature.polygon);
  const areaM2 = coveredArea(polygons);
  if (areaM2 > limits.maxAreaM2) {
    const limitKm2 = limits.maxAreaM2 / 1e6;
    errors.add(field, `The ${attribute(field)} must not cover more than ${limitKm2} km² (it covers ${(areaM2 / 1e6).toFixed(2)} km²).`);
    return { ok: false, errors: errors.toFieldErrors() };
  }
  const stored: FeatureCollection = { type: 'FeatureCollection', features: complete.map((feature) => feature.stored) };
  return { ok: true, area: { stored, polygons, summary: summarise(polygons, areaM2) } };
}

function readCollection(input: unknown, limits: FlightAreaLimits, field: string, errors: FieldErrorBag): unknown[] | null {
  if (input === undefined || input === null) {
    errors.add(field, `The ${attribute(field)} field is required.`);
    return null;
  }
  if (!isRecord(input)) {
    errors.add(field, `The ${attribute(field)} field must be a GeoJSON FeatureCollection object.`);
    return null;
  }
  const typePath = at(field, 'type');
  if (own(input, 'type') !== 'FeatureCollection') errors.add(typePath, `The ${attribute(typePath)} field must be FeatureCollection.`);
  const features = own(input, 'features');
  const path = at(field, 'features');
  if (!Array.isArray(features)) {
    errors.add(path, `The ${attribute(path)} field must be an array of features.`);
    return null;
  }
  if (features.length < 1) errors.add(path, `The ${attribute(path)} field must have at least 1 items.`);
  if (features.length > limits.maxFeatures) {
    errors.add(path, `The ${attribute(path)} field must not have more than ${limits.maxFeatures} items.`);
  }
  return errors.empty ? features : null;
}

function readFeatureShape(feature: unknown, path: string, limits: FlightAreaLimits, errors: FieldErrorBag): FeatureShape | null {
  if (!isRecord(feature)) {
    errors.add(path, `The ${attribute(path)} field must be a GeoJSON Feature object.`);
    return null;
  }
  const typePath = at(path, 'type');
  if (own(feature, 'type') !== 'Feature') errors.add(typePath, `The ${attribute(typePath)} field must be Feature.`);
  const properties = readProperties(own(feature, 'properties'), at(path, 'properties'), errors);
  const type = readGeometryType(own(feature, 'geometry'), at(path, 'geometry'), AREA_GEOMETRY_TYPES, errors);
  const radiusM = type === 'Point' && properties ? readRadius(properties, at(path, 'properties.radius_m'), limits, errors) : null;
  if (!type) return null;
  // The coordinates are still read when another part failed, so their errors are reported too.
  const id = own(feature, 'id');
  return {
    path,
    type,
    coordinates: own(feature.geometry as Record<string, unknown>, 'coordinates'),
    properties: properties ?? {},
    radiusM,
    id: typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined,
  };
}

function readProperties(value: unknown, path: string, errors: FieldErrorBag): Record<string, unknown> | null {
  if (value === undefined) errors.add(path, `The ${attribute(path)} field is required (an object, it may be empty).`);
  else if (!isRecord(value)) errors.add(path, `The ${attribute(path)} field must be an object.`);
  else return value;
  return null;
}

/** The geometry's type, when the geometry is an object of one of `allowed`. */
function readGeometryType(
  geometry: unknown,
  path: string,
  allowed: readonly AreaGeometryType[],
  errors: FieldErrorBag,
): AreaGeometryType | null {
  if (geometry === undefined || geometry === null) {
    errors.add(path, `The ${attribute(path)} field is required.`);
    return null;
  }
  if (!isRecord(geometry)) {
    errors.add(path, `The ${attribute(path)} field must be a GeoJSON geometry object.`);
    return null;
  }
  const type = own(geometry, 'type');
  if (!allowed.includes(type as AreaGeometryType)) {
    const typePath = at(path, 'type');
    errors.add(typePath, `The ${attribute(typePath)} field must be one of: ${allowed.join(', ')}.`);
    return null;
  }
  if (own(geometry, 'coordinates') === undefined) {
    const coordinatesPath = at(path, 'coordinates');
    errors.add(coordinatesPath, `The ${attribute(coordinatesPath)} field is required.`);
    return null;
  }
  return type as AreaGeometryType;
}

function readRadius(properties: Record<string, unknown>, path: string, limits: FlightAreaLimits, errors: FieldErrorBag): number | null {
  const radius = own(properties, 'radius_m');
  if (radius === undefined || radius === null) {
    errors.add(path, `The ${attribute(path)} field is required when the geometry is a Point.`);
  } else if (typeof radius !== 'number' || !Number.isFinite(radius)) {
    errors.add(path, `The ${attribute(path)} field must be a number.`);
  } else if (radius < 1 || radius > limits.maxRadiusM) {
    errors.add(path, `The ${attribute(path)} field must be between 1 and ${limits.maxRadiusM}.`);
  } else {
    return radius;
  }
  return null;
}

interface BuiltFeature {
  stored: Feature;
  polygon: AreaPolygon;
}

function buildFeature(shape: FeatureShape, errors: FieldErrorBag): BuiltFeature | null {
  const geometryPath = at(shape.path, 'geometry');
  const geometry = shape.type === 'Point' ? buildCircle(shape, geometryPath, errors) : buildPolygonal(shape, geometryPath, errors);
  if (!geometry) return null;
  const polygon: AreaPolygon = { type: 'Feature', properties: {}, geometry: geometry.polygon };
  const stored: Feature = { type: 'Feature', properties: { ...shape.properties }, geometry: geometry.stored };
  if (shape.id !== undefined) stored.id = shape.id;
  return { stored, polygon };
}

interface BuiltGeometry {
  stored: Polygonal | Point;
  polygon: Polygonal;
}

/** A (Multi)Polygon is stored as screened; the two share one read-only object. */
function buildPolygonal(shape: FeatureShape, geometryPath: string, errors: FieldErrorBag): BuiltGeometry | null {
  const geometry = checkPolygonal(shape.type as Polygonal['type'], shape.coordinates, geometryPath, errors);
  return geometry ? { stored: geometry, polygon: geometry } : null;
}

function buildCircle(shape: FeatureShape, geometryPath: string, errors: FieldErrorBag): BuiltGeometry | null {
  const center = readPosition(shape.coordinates, at(geometryPath, 'coordinates'), errors);
  if (!center || shape.radiusM === null) return null;
  const polygon = circlePolygon(center, shape.radiusM);
  if (!polygon) {
    errors.add(geometryPath, `The ${attribute(geometryPath)} circle must not cross a pole or the antimeridian.`);
    return null;
  }
  return { stored: { type: 'Point', coordinates: center }, polygon };
}

function checkZone(input: unknown, field: string): ZoneGeometryCheck {
  const errors = new FieldErrorBag();
  const type = readGeometryType(input, field, ZONE_GEOMETRY_TYPES, errors) as Polygonal['type'] | null;
  if (!type) return { ok: false, errors: errors.toFieldErrors() };
  const coordinates = own(input as Record<string, unknown>, 'coordinates');
  const positions = countPositions(type, coordinates);
  if (positions > MAX_ZONE_POSITIONS) {
    errors.add(field, `The ${attribute(field)} must not have more than ${MAX_ZONE_POSITIONS} positions (it has ${positions}).`);
    return { ok: false, errors: errors.toFieldErrors() };
  }
  const geometry = checkPolygonal(type, coordinates, field, errors);
  return geometry ? { ok: true, geometry } : { ok: false, errors: errors.toFieldErrors() };
}
