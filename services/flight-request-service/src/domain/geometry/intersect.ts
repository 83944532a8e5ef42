import { bbox } from '@turf/bbox';
import { booleanIntersects } from '@turf/boolean-intersects';
import type { Feature, MultiPolygon, Polygon } from 'geojson';

/*
 * Real intersection of two areas. @turf/bbox gives a cheap pre-filter, then
 * @turf/boolean-intersects decides on the true shapes (DE-9IM "not disjoint"). A
 * shared boundary counts as intersecting: a zone's edge belongs to the zone, and
 * two flights sharing an edge are not separated.
 */

export type AreaPolygon = Feature<Polygon | MultiPolygon>;
export type BBox = [number, number, number, number];

export function areasIntersect(a: AreaPolygon[], b: AreaPolygon[]): boolean {
  const boxesB = b.map(boundsOf);
  return a.some((polygonA) => {
    const boxA = boundsOf(polygonA);
    return b.some((polygonB, i) => boxesOverlap(boxA, boxesB[i] as BBox) && shapesIntersect(polygonA, polygonB));
  });
}

export function boundsOf(feature: AreaPolygon): BBox {
  const [west, south, east, north] = bbox(feature);
  return [west, south, east, north];
}

export function boxesOverlap(a: BBox, b: BBox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** A library failure counts as intersecting: screening then asks a person rather than approving blindly. */
function shapesIntersect(a: AreaPolygon, b: AreaPolygon): boolean {
  try {
    return booleanIntersects(a, b);
  } catch {
    return true;
  }
}
