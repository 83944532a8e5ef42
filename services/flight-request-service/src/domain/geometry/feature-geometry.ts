import type { Feature, Point } from 'geojson';
import { circlePolygon } from './circle-area.js';
import { at, attribute, type FieldErrorBag } from './field-errors.js';
import type { FeatureShape } from './features.js';
import type { AreaPolygon } from './intersect.js';
import { checkPolygonal, type Polygonal } from './polygonal.js';
import { readPosition } from './structure.js';

/** A checked feature: what is stored (as submitted, right-handed) and the polygon screening uses. */
export interface BuiltFeature {
  stored: Feature;
  polygon: AreaPolygon;
}

interface BuiltGeometry {
  stored: Polygonal | Point;
  polygon: Polygonal;
}

export function buildFeature(shape: FeatureShape, errors: FieldErrorBag): BuiltFeature | null {
  const geometryPath = at(shape.path, 'geometry');
  const geometry = shape.type === 'Point' ? buildCircle(shape, geometryPath, errors) : buildPolygonal(shape, geometryPath, errors);
  if (!geometry) return null;
  const polygon: AreaPolygon = { type: 'Feature', properties: {}, geometry: geometry.polygon };
  const stored: Feature = { type: 'Feature', properties: { ...shape.properties }, geometry: geometry.stored };
  if (shape.id !== undefined) stored.id = shape.id;
  return { stored, polygon };
}

/** A (Multi)Polygon is stored as screened; the two share one object, to be treated as read-only. */
function buildPolygonal(shape: FeatureShape, geometryPath: string, errors: FieldErrorBag): BuiltGeometry | null {
  const geometry = checkPolygonal(shape.type as Polygonal['type'], shape.coordinates, geometryPath, errors);
  return geometry ? { stored: geometry, polygon: geometry } : null;
}

/** A Point with radius_m is stored as submitted and screened as a 64-gon. */
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
