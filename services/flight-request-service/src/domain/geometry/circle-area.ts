import { area } from '@turf/area';
import { bbox } from '@turf/bbox';
import { circle } from '@turf/circle';
import { rewind } from '@turf/rewind';
import type { Polygon, Position } from 'geojson';
import { safely } from './topology.js';

/*
 * A Point with properties.radius_m stands for a circle. @turf/circle draws it
 * geodesically as a 64-sided polygon, so screening and overlap tests treat it
 * like any other polygon.
 */

export const CIRCLE_STEPS = 64;

/**
 * The circle as a right-handed polygon, or null where lon/lat polygons cannot
 * hold it (across a pole or the antimeridian): there the drawn ring leaves the
 * map's bounds or wraps round it (@turf/bbox), or its area (@turf/area) is
 * nowhere near πr².
 */
export function circlePolygon(center: Position, radiusM: number): Polygon | null {
  const origin: [number, number] = [center[0] as number, center[1] as number];
  const drawn = safely(() => circle(origin, radiusM, { steps: CIRCLE_STEPS, units: 'meters' }));
  if (!drawn) return null;
  const [west, south, east, north] = bbox(drawn);
  const onTheMap = west >= -180 && east <= 180 && south >= -90 && north <= 90 && east - west <= 180;
  const ratio = area(drawn) / (Math.PI * radiusM * radiusM);
  if (!onTheMap || !(ratio > 0.9 && ratio < 1.1)) return null;
  return rewind(drawn.geometry, { mutate: true }) as Polygon;
}
