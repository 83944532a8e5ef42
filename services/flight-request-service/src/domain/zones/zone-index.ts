import { bbox } from '@turf/bbox';
import RBush from 'rbush';
import type { BBox } from '../geometry/flight-area.js';
import type { Polygonal } from '../geometry/polygonal.js';
import type { GeoZone, ZoneVolume } from './geo-zone.js';
import { packPolygonal, unpackPolygonal, type PackedPolygonal } from './packed-geometry.js';

/*
 * The in-memory spatial index of geo-zones. rbush (an R-tree) answers "which
 * zones' bounding boxes meet this box" in logarithmic time, so screening runs the
 * exact intersection test on a handful of candidates rather than on every zone;
 * @turf/bbox gives each zone's box. Areas are kept packed (packed-geometry.ts)
 * and read back as GeoJSON for the candidates a search returns only.
 */

type KeptArea = PackedPolygonal | Polygonal;

/** A zone as the index keeps it: a volume whose area is the zone's keeps it once. */
interface KeptZone {
  fields: Omit<GeoZone, 'geometry' | 'volumes'>;
  geometry: KeptArea;
  volumes: Array<{ limits: Omit<ZoneVolume, 'geometry'>; geometry: KeptArea | 'zone' }>;
}

interface IndexEntry {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  id: string;
  kept: KeptZone;
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
      .sort((a, b) => compareIds(a.id, b.id))
      .map((entry) => zoneOf(entry.kept));
  }

  get size(): number {
    return this.entries.size;
  }
}

function entryOf(zone: GeoZone): IndexEntry {
  const [minX, minY, maxX, maxY] = boundsOf(zone);
  return { minX, minY, maxX, maxY, id: zone.id, kept: keep(zone) };
}

function keep({ geometry, volumes, ...fields }: GeoZone): KeptZone {
  return {
    fields,
    geometry: keepArea(geometry),
    volumes: volumes.map(({ geometry: area, ...limits }) => ({ limits, geometry: area === geometry ? 'zone' : keepArea(area) })),
  };
}

function zoneOf({ fields, geometry: kept, volumes }: KeptZone): GeoZone {
  const geometry = areaOf(kept);
  return {
    ...fields,
    geometry,
    volumes: volumes.map(({ limits, geometry: area }) => ({ ...limits, geometry: area === 'zone' ? geometry : areaOf(area) })),
  };
}

function keepArea(area: Polygonal): KeptArea {
  return packPolygonal(area) ?? area;
}

function areaOf(kept: KeptArea): Polygonal {
  return isPacked(kept) ? unpackPolygonal(kept) : kept;
}

function isPacked(kept: KeptArea): kept is PackedPolygonal {
  return 'ringEnds' in kept;
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
