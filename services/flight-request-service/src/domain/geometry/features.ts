import { at, attribute, type FieldErrorBag } from './field-errors.js';
import type { FlightAreaLimits } from './limits.js';
import { isRecord, own, type AreaGeometryType } from './structure.js';

/*
 * The shape of a FeatureCollection and of its features, read structurally:
 * everything but the coordinates, which are only counted (structure.ts) and
 * read once the position budget is known to hold.
 */

/** A feature whose geometry type is known, before its coordinates are read. */
export interface FeatureShape {
  path: string;
  type: AreaGeometryType;
  coordinates: unknown;
  properties: Record<string, unknown>;
  /** A Point's valid radius_m; null when missing or invalid (already reported). */
  radiusM: number | null;
  id: string | number | undefined;
}

const AREA_GEOMETRY_TYPES: readonly AreaGeometryType[] = ['Polygon', 'MultiPolygon', 'Point'];

/** The features, when the collection itself is sound; no deep work on an oversized array. */
export function readCollection(input: unknown, limits: FlightAreaLimits, field: string, errors: FieldErrorBag): unknown[] | null {
  if (input === undefined || input === null) {
    errors.add(field, `The ${attribute(field)} field is required.`);
    return null;
  }
  if (!isRecord(input)) {
    errors.add(field, `The ${attribute(field)} field must be a GeoJSON FeatureCollection object.`);
    return null;
  }
  const typePath = at(field, 'type');
  if (own(input, 'type') !== 'FeatureCollection') {
    errors.add(typePath, `The ${attribute(typePath)} field must be FeatureCollection.`);
  }
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
  const sound = errors.empty;
  // Reported beside the features' own errors rather than instead of them.
  refuseCrs(input, field, errors);
  return sound ? features : null;
}

export function readFeatureShape(feature: unknown, path: string, limits: FlightAreaLimits, errors: FieldErrorBag): FeatureShape | null {
  if (!isRecord(feature)) {
    errors.add(path, `The ${attribute(path)} field must be a GeoJSON Feature object.`);
    return null;
  }
  refuseCrs(feature, path, errors);
  const typePath = at(path, 'type');
  if (own(feature, 'type') !== 'Feature') errors.add(typePath, `The ${attribute(typePath)} field must be Feature.`);
  const properties = readProperties(own(feature, 'properties'), at(path, 'properties'), errors);
  const geometry = own(feature, 'geometry');
  const type = readGeometryType(geometry, at(path, 'geometry'), AREA_GEOMETRY_TYPES, errors);
  const radiusPath = at(path, 'properties.radius_m');
  const radiusM = type === 'Point' && properties ? readRadius(properties, radiusPath, limits, errors) : null;
  if (!type) return null;
  // Even when another part failed, the coordinates are still read so their errors are reported too.
  return {
    path,
    type,
    coordinates: own(geometry as Record<string, unknown>, 'coordinates'),
    properties: properties ?? {},
    radiusM,
    id: featureId(own(feature, 'id')),
  };
}

/** The geometry's type, when the geometry is an object of one of `allowed` with coordinates. */
export function readGeometryType(
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
  refuseCrs(geometry, path, errors);
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

/**
 * RFC 7946 §4 removed `crs`: coordinates are WGS 84 longitude and latitude.
 * A member naming another system would otherwise be ignored and the area read
 * in the wrong place, so it is refused wherever GeoJSON objects are read.
 */
export function refuseCrs(object: Record<string, unknown>, path: string, errors: FieldErrorBag): void {
  if (!Object.hasOwn(object, 'crs')) return;
  const crsPath = at(path, 'crs');
  errors.add(crsPath, `The ${attribute(crsPath)} field is not allowed: RFC 7946 removed crs, coordinates are WGS 84 longitude and latitude.`);
}

function readProperties(value: unknown, path: string, errors: FieldErrorBag): Record<string, unknown> | null {
  if (value === undefined) errors.add(path, `The ${attribute(path)} field is required (an object, it may be empty).`);
  else if (!isRecord(value)) errors.add(path, `The ${attribute(path)} field must be an object.`);
  else return value;
  return null;
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

/** RFC 7946 §3.2: a feature's id is a string or a number; anything else is dropped. */
function featureId(id: unknown): string | number | undefined {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}
