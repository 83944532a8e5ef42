import ngeohash from 'ngeohash';
import type { AreaPolygon, BBox } from '../geometry/flight-area.js';
import { boundsOf } from '../geometry/intersect.js';

/**
 * The airspace a flight takes: its area, its altitude band and its window
 * (half-open). Two volumes of different operators conflict when they share
 * all three.
 */
export interface AirspaceVolume {
  operator_uuid: string;
  start: Date;
  end: Date;
  lower_m: number;
  upper_m: number;
  polygons: AreaPolygon[];
}

/**
 * The grid the reservation ledger is kept on: geohash cells by UTC hours, at
 * two levels. A flight is kept at the fine level (6 characters, about
 * 1.2 × 0.6 km at the equator) when one hour of it takes at most
 * MAX_FINE_CELLS of those cells, else at the coarse level (4 characters, about
 * 39 × 20 km). Its claim is written into its own cells at its level and, as
 * a mark, into the cells around them at the coarser level. So a neighbourhood
 * dense with small flights keeps them apart in small cells, a large flight
 * takes few documents, and any two flights that share airspace share a cell
 * at the coarser of their two levels, where one of them is at home.
 */
const COARSE = 4;
const FINE = 6;
const MAX_FINE_CELLS = 16;
const BUCKET_MS = 3_600_000;
/** Boxes are widened by this much so that a point on a cell's edge is in the cells of both sides. */
const EDGE_MARGIN_DEG = 1e-9;

/**
 * A cell-hour a claim is written into: `own` in the cells of the claim's
 * level (there it reads every claim written into the cell, marks included),
 * else a mark in a coarser cell (there it reads only the claims at home in it).
 */
export interface LedgerCell {
  id: string;
  own: boolean;
}

/**
 * Every cell-hour the volume touches, sorted by id: its own cells at its
 * level and its marks at the coarser one. Two volumes that share any point
 * of space and instant of time share a cell-hour at the coarser of their
 * levels, where that volume is `own`: the one at home reads the other's
 * claim, the other reads the one at home.
 */
export function cellsOf(volume: Pick<AirspaceVolume, 'start' | 'end' | 'polygons'>): LedgerCell[] {
  const boxes = volume.polygons.flatMap(partBounds).map(widened);
  const level = boxes.reduce((cells, box) => cells + cellCount(box, FINE), 0) <= MAX_FINE_CELLS ? FINE : COARSE;
  const hashes = new Map<string, boolean>();
  for (const precision of level === FINE ? [COARSE, FINE] : [COARSE]) {
    for (const [west, south, east, north] of boxes) {
      for (const hash of ngeohash.bboxes(south, west, north, east, precision)) hashes.set(hash, precision === level);
    }
  }
  const cells: LedgerCell[] = [];
  const first = Math.floor(volume.start.getTime() / BUCKET_MS);
  const last = Math.floor((volume.end.getTime() - 1) / BUCKET_MS);
  for (const [hash, own] of hashes) {
    for (let bucket = first; bucket <= last; bucket++) cells.push({ id: `${hash}:${new Date(bucket * BUCKET_MS).toISOString().slice(0, 13)}`, own });
  }
  return cells.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function widened([west, south, east, north]: BBox): BBox {
  return [west - EDGE_MARGIN_DEG, south - EDGE_MARGIN_DEG, east + EDGE_MARGIN_DEG, north + EDGE_MARGIN_DEG];
}

/** How many geohash cells of `precision` characters a box touches (a geohash cell halves longitude and latitude in turn). */
function cellCount([west, south, east, north]: BBox, precision: number): number {
  const bits = 5 * precision;
  const width = 360 / 2 ** Math.ceil(bits / 2);
  const height = 180 / 2 ** Math.floor(bits / 2);
  const columns = Math.floor((east + 180) / width) - Math.floor((west + 180) / width) + 1;
  const rows = Math.floor((north + 90) / height) - Math.floor((south + 90) / height) + 1;
  return columns * rows;
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

/** Windows overlap (half-open) and altitude bands overlap (a band touching another at one height shares no airspace). */
export function shareTimeAndBand(
  a: Pick<AirspaceVolume, 'start' | 'end' | 'lower_m' | 'upper_m'>,
  b: Pick<AirspaceVolume, 'start' | 'end' | 'lower_m' | 'upper_m'>,
): boolean {
  return a.start.getTime() < b.end.getTime() && b.start.getTime() < a.end.getTime() && a.lower_m < b.upper_m && b.lower_m < a.upper_m;
}

export function boxesMeet(a: BBox, b: BBox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}
