import { area } from '@turf/area';
import { bbox } from '@turf/bbox';
import { centroid } from '@turf/centroid';
import type { FeatureCollection, MultiPolygon, Polygon } from 'geojson';
import type { AreaPolygon, BBox } from './intersect.js';

/*
 * The area summary of a checked flight area: @turf/area measures geodesically
 * (m²), @turf/bbox and @turf/centroid (the mean of the vertices) place it on a map.
 */

export interface AreaSummary {
  bbox: BBox;
  centroid: [number, number];
  area_m2: number;
  feature_count: number;
}

/**
 * The total area in m²: the sum of the features' areas, so overlapping features
 * count each time. Merging them first (@turf/union) took seconds for 50 overlapping
 * 200-gons, too slow for a request; the sum is cheap, predictable and never less.
 */
export function totalArea(polygons: AreaPolygon[]): number {
  return area(featureCollection(polygons));
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
