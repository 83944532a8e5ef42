import ngeohash from 'ngeohash';
import type { AreaPolygon, BBox } from '../geometry/flight-area.js';
import { boundsOf } from '../geometry/intersect.js';
import { bandsOverlap, type Band } from '../volumes/band.js';
import type { FlightVolume } from '../volumes/flight-volume.js';

/**
 * The airspace one volume of a flight takes: its area, its altitude band and
 * its window (half-open). Two volumes of different operators conflict when
 * they share all three; a flight takes one such volume per band and window.
 */
export interface AirspaceVolume extends FlightVolume {
  operator_uuid: string;
}

/**
 * The grid the reservation ledger is kept on: geohash cells of 4 characters
 * (about 39 × 20 km at the equator, narrower towards the poles) by UTC hours.
 * Large enough that a typical flight takes one or two cells, small enough that
 * a cell-hour holds the flights of one neighbourhood only.
 */
const CELL_PRECISION = 4;
const BUCKET_MS = 3_600_000;
/** Boxes are widened by this much so that a point on a cell's edge is in the cells of both sides. */
const EDGE_MARGIN_DEG = 1e-9;

/**
 * Every cell-hour the volume touches, sorted: each claim takes them in this
 * one order. Two volumes that share any point of space and instant of time
 * share the cell-hour that holds it, and so always meet in at least one
 * ledger document.
 */
export function cellsOf(volume: Pick<AirspaceVolume, 'start' | 'end' | 'polygons'>): string[] {
  const hashes = new Set<string>();
  for (const [west, south, east, north] of volume.polygons.flatMap(partBounds)) {
    for (const hash of ngeohash.bboxes(
      south - EDGE_MARGIN_DEG,
      west - EDGE_MARGIN_DEG,
      north + EDGE_MARGIN_DEG,
      east + EDGE_MARGIN_DEG,
      CELL_PRECISION,
    )) {
      hashes.add(hash);
    }
  }
  const cells: string[] = [];
  const first = Math.floor(volume.start.getTime() / BUCKET_MS);
  const last = Math.floor((volume.end.getTime() - 1) / BUCKET_MS);
  for (const hash of hashes) {
    for (let bucket = first; bucket <= last; bucket++) cells.push(`${hash}:${new Date(bucket * BUCKET_MS).toISOString().slice(0, 13)}`);
  }
  return cells.sort();
}

/** Each polygon of a MultiPolygon on its own: an area split at ±180° must not count as a band around the globe. */
function partBounds(polygon: AreaPolygon): BBox[] {
  const { geometry } = polygon;
  if (geometry.type === 'Polygon') return [boundsOf(polygon)];
  return geometry.coordinates.map((coordinates) => boundsOf({ ...polygon, geometry: { type: 'Polygon', coordinates } }));
}

/** The bounding box of all the volume's polygons. */
export function boundsOfVolume(volume: Pick<AirspaceVolume, 'polygons'>): BBox {
  return volume.polygons
    .map(boundsOf)
    .reduce((all, box) => [Math.min(all[0], box[0]), Math.min(all[1], box[1]), Math.max(all[2], box[2]), Math.max(all[3], box[3])]);
}

/** Windows overlap (half-open) and altitude bands overlap (band.ts: a band touching another at one height shares no airspace). */
export function shareTimeAndBand(a: Band & { start: Date; end: Date }, b: Band & { start: Date; end: Date }): boolean {
  return a.start.getTime() < b.end.getTime() && b.start.getTime() < a.end.getTime() && bandsOverlap(a, b);
}

export function boxesMeet(a: BBox, b: BBox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}
