import type { Feature, MultiPolygon, Polygon, Position } from 'geojson';
import { boundsRing } from '@dfc/contracts';

/** Counter-clockwise rectangle ring [west, south] → [east, north], its edges exactly these. */
export function rectangle(west: number, south: number, east: number, north: number): Position[] {
  return boundsRing([west, south, east, north]);
}

export function polygon(...rings: Position[][]): Polygon {
  return { type: 'Polygon', coordinates: rings };
}

export function feature(geometry: unknown, properties: unknown = {}): Record<string, unknown> {
  return { type: 'Feature', properties, geometry };
}

export function collection(...features: unknown[]): Record<string, unknown> {
  return { type: 'FeatureCollection', features };
}

export function areaFeature(geometry: Polygon | MultiPolygon): Feature<Polygon | MultiPolygon> {
  return { type: 'Feature', properties: {}, geometry };
}

/** A simple ring of `positions` positions (closing one included) on a small circle round the centre. */
export function roundRing(positions: number, [longitude, latitude]: [number, number], radiusDeg = 0.01): Position[] {
  const distinct = positions - 1;
  const ring: Position[] = [];
  for (let i = 0; i < distinct; i += 1) {
    const angle = (2 * Math.PI * i) / distinct;
    ring.push([longitude + radiusDeg * Math.cos(angle), latitude + radiusDeg * Math.sin(angle)]);
  }
  ring.push(ring[0] as Position);
  return ring;
}

/** Twice the planar signed area (shoelace): positive when the ring runs counter-clockwise. */
export function signedArea(ring: Position[]): number {
  let sum = 0;
  for (let i = 0; i < ring.length - 1; i += 1) {
    const [x1, y1] = ring[i] as [number, number];
    const [x2, y2] = ring[i + 1] as [number, number];
    sum += x1 * y2 - x2 * y1;
  }
  return sum;
}
