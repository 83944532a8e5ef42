import { area } from '@turf/area';
import { bbox } from '@turf/bbox';
import { centroid } from '@turf/centroid';
import { union } from '@turf/union';
import type { FeatureCollection, MultiPolygon, Polygon } from 'geojson';
import type { AreaPolygon, BBox } from './intersect.js';
import { safely } from './topology.js';

/*
 * The area summary of a checked flight area. @turf/union merges overlapping
 * features so overlap is counted once, @turf/area measures geodesically (m²),
 * @turf/bbox and @turf/centroid (the mean of the vertices) place it on a map.
 */

export interface AreaSummary {
  bbox: BBox;
  centroid: [number, number];
  area_m2: number;
  feature_count: number;
}

/** Area covered by the polygons together, in m²; features that overlap count once. */
export function coveredArea(polygons: AreaPolygon[]): number {
  const collection = featureCollection(polygons);
  if (polygons.length > 1) {
    const merged = safely(() => union(collection));
    if (merged) return area(merged);
  }
  // One polygon, or a union the library could not compute: the plain sum is an upper bound.
  return area(collection);
}

export function summarise(polygons: AreaPolygon[], areaM2: number): AreaSummary {
  const collection = featureCollection(polygons);
  const [west, south, east, north] = bbox(collection);
  const [longitude, latitude] = centroid(collection).geometry.coordinates as [number, number];
  return {
    bbox: [west, south, east, north],
    centroid: [longitude, latitude],
    area_m2: Math.round(areaM2 * 100) / 100,
    feature_count: polygons.length,
  };
}

function featureCollection(polygons: AreaPolygon[]): FeatureCollection<Polygon | MultiPolygon> {
  return { type: 'FeatureCollection', features: polygons };
}
