import { bbox } from '@turf/bbox';
import RBush from 'rbush';
import type { BBox } from '../geometry/flight-area.js';
import type { GeoZone } from './geo-zone.js';

/*
 * The in-memory spatial index of geo-zones. rbush (an R-tree) answers "which
 * zones' bounding boxes meet this box" in logarithmic time, so screening runs the
 * exact intersection test on a handful of candidates rather than on every zone;
 * @turf/bbox gives each zone's box.
 */

interface IndexEntry {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  zone: GeoZone;
}

/** The whole map: a zone whose bounds cannot be computed is a candidate everywhere, never silently missed. */
const WORLD: BBox = [-180, -90, 180, 90];

export class ZoneIndex {
  private readonly tree = new RBush<IndexEntry>();
  private readonly entries = new Map<string, IndexEntry>();

  /** Bulk-loaded with `zones` (faster than one insert per zone). A repeated id keeps the last zone. */
  constructor(zones: GeoZone[] = []) {
    for (const zone of zones) this.entries.set(zone.id, entryOf(zone));
    this.tree.load([...this.entries.values()]);
  }

  upsert(zone: GeoZone): void {
    this.remove(zone.id);
    const entry = entryOf(zone);
    this.entries.set(zone.id, entry);
    this.tree.insert(entry);
  }

  /** Removes every zone whose id is not in `ids`. */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of [...this.entries.keys()]) if (!ids.has(id)) this.remove(id);
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.tree.remove(entry);
    this.entries.delete(id);
  }

  /** Zones whose bounding box meets `box` ([west, south, east, north]), ordered by id so screening is deterministic. */
  search([west, south, east, north]: BBox): GeoZone[] {
    return this.tree
      .search({ minX: west, minY: south, maxX: east, maxY: north })
      .map((entry) => entry.zone)
      .sort((a, b) => compareIds(a.id, b.id));
  }

  get size(): number {
    return this.entries.size;
  }
}

function entryOf(zone: GeoZone): IndexEntry {
  const [minX, minY, maxX, maxY] = boundsOf(zone);
  return { minX, minY, maxX, maxY, zone };
}

function boundsOf(zone: GeoZone): BBox {
  try {
    const [west, south, east, north] = bbox(zone.geometry);
    return [west, south, east, north].every(Number.isFinite) ? [west, south, east, north] : WORLD;
  } catch {
    return WORLD;
  }
}

export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
