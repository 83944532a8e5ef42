import type { Position } from 'geojson';
import type { Polygonal } from '../geometry/polygonal.js';

/*
 * A zone's area as the index keeps it between screenings: every coordinate in
 * one Float64Array, and where each ring and polygon ends. A GeoJSON vertex is an
 * array of two boxed numbers on the heap, several times the 16 bytes it takes
 * here; a national map of detailed zones is mostly vertices. Float64Array holds
 * every JavaScript number exactly, so the area read back is the one stored.
 */

export interface PackedPolygonal {
  type: Polygonal['type'];
  /** Longitude, latitude (and any further values of a position), `dimensions` numbers a vertex. */
  coordinates: Float64Array;
  dimensions: number;
  /** Vertex count at the end of each ring. */
  ringEnds: Uint32Array;
  /** Ring count at the end of each polygon (one polygon for a Polygon). */
  polygonEnds: Uint32Array;
}

/** Null when the positions differ in length or the object has members beyond type and coordinates: such an area is kept as it is. */
export function packPolygonal(geometry: Polygonal): PackedPolygonal | null {
  if (Object.keys(geometry).some((key) => key !== 'type' && key !== 'coordinates')) return null;
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const rings = polygons.flat();
  const dimensions = rings[0]?.[0]?.length ?? 2;
  if (rings.some((ring) => ring.some((position) => position.length !== dimensions))) return null;
  const coordinates = new Float64Array(rings.reduce((count, ring) => count + ring.length, 0) * dimensions);
  const ringEnds = new Uint32Array(rings.length);
  let written = 0;
  rings.forEach((ring, r) => {
    for (const position of ring) {
      coordinates.set(position, written);
      written += dimensions;
    }
    ringEnds[r] = written / dimensions;
  });
  const polygonEnds = new Uint32Array(polygons.length);
  let ringCount = 0;
  polygons.forEach((polygon, p) => (polygonEnds[p] = ringCount += polygon.length));
  return { type: geometry.type, coordinates, dimensions, ringEnds, polygonEnds };
}

export function unpackPolygonal({ type, coordinates, dimensions, ringEnds, polygonEnds }: PackedPolygonal): Polygonal {
  const rings: Position[][] = [];
  let vertex = 0;
  for (const end of ringEnds) {
    const ring: Position[] = [];
    for (; vertex < end; vertex++) ring.push(positionAt(coordinates, vertex * dimensions, dimensions));
    rings.push(ring);
  }
  const polygons: Position[][][] = [];
  let ring = 0;
  for (const end of polygonEnds) polygons.push(rings.slice(ring, (ring = end)));
  return type === 'Polygon' ? { type, coordinates: polygons[0] ?? [] } : { type, coordinates: polygons };
}

function positionAt(coordinates: Float64Array, start: number, dimensions: number): Position {
  if (dimensions === 2) return [coordinates[start]!, coordinates[start + 1]!];
  const position: Position = [];
  for (let i = start; i < start + dimensions; i++) position.push(coordinates[i]!);
  return position;
}
