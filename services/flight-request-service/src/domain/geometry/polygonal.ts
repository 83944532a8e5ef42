import { rewind } from '@turf/rewind';
import type { MultiPolygon, Polygon } from 'geojson';
import { at, type FieldErrorBag } from './field-errors.js';
import { readMultiPolygon, readPolygon } from './structure.js';
import { checkPolygonTopology } from './topology.js';

/*
 * Reads and checks a Polygon or MultiPolygon's coordinates, then rewinds a copy to
 * the right-hand rule with @turf/rewind (RFC 7946 §3.1.6: exterior rings
 * counter-clockwise, holes clockwise) so clients may send either winding.
 */

export type Polygonal = Polygon | MultiPolygon;

/** `path` names the geometry; errors go under `<path>.coordinates...`. */
export function checkPolygonal(type: Polygonal['type'], coordinates: unknown, path: string, errors: FieldErrorBag): Polygonal | null {
  const coordinatesPath = at(path, 'coordinates');
  if (type === 'Polygon') {
    const rings = readPolygon(coordinates, coordinatesPath, errors);
    if (!rings || !checkPolygonTopology(rings, coordinatesPath, errors)) return null;
    return rightHanded({ type, coordinates: rings });
  }
  const polygons = readMultiPolygon(coordinates, coordinatesPath, errors);
  if (!polygons) return null;
  const valid = polygons.map((rings, i) => checkPolygonTopology(rings, at(coordinatesPath, i), errors)).every(Boolean);
  return valid ? rightHanded({ type, coordinates: polygons }) : null;
}

/** The coordinates were freshly copied while reading, so rewinding in place touches no input. */
function rightHanded<T extends Polygonal>(geometry: T): T {
  rewind(geometry, { mutate: true });
  return geometry;
}
