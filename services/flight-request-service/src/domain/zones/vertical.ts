import type { BBox } from '../geometry/flight-area.js';
import type { VerticalLimit, ZoneVolume } from './geo-zone.js';

/*
 * Zone limits are held as published (AGL, AMSL or WGS-84 heights, in metres or
 * feet) and compared with the flight's band, which is [0, max_altitude] metres
 * above the ground under it. Comparing across references needs the ground's
 * height above mean sea level over the flight area (a terrain model) and the
 * geoid's height above the ellipsoid (EGM96); both come through `VerticalModel`.
 *
 * Every comparison is conservative: the flight's band in AMSL is taken from
 * its lowest ground to its highest ground plus max_altitude, and an AGL limit
 * anywhere between the lowest and highest ground, so a zone that could be met
 * counts as met. Without terrain, a limit that is not AGL counts as met.
 */

export const FEET_TO_METRES = 0.3048;

/** The ground's lowest and highest height above mean sea level over an area, in metres. */
export interface TerrainRange {
  min: number;
  max: number;
}

export interface VerticalModel {
  /** Null where no terrain tile covers the whole box, or it has voids. */
  terrainRange(box: BBox): TerrainRange | null;
  /** EGM96 geoid height above the WGS-84 ellipsoid, in metres. */
  geoidHeight(longitude: number, latitude: number): number;
}

/** No terrain, and a flat geoid: AGL limits compare exactly, others count as met. */
export const NO_VERTICAL_MODEL: VerticalModel = { terrainRange: () => null, geoidHeight: () => 0 };

export function inMetres(limit: Pick<VerticalLimit, 'value' | 'uom'>): number {
  return limit.uom === 'ft' ? limit.value * FEET_TO_METRES : limit.value;
}

export interface BandMeeting {
  meets: boolean;
  /** True when a limit in another reference than AGL had to count as met because no terrain covers the area. */
  terrainUnknown: boolean;
}

/** Whether the flight's band [0, maxAltitudeM] AGL over `box` meets the volume's band. */
export function bandMeets(volume: Pick<ZoneVolume, 'lower' | 'upper'>, maxAltitudeM: number, box: BBox, model: VerticalModel): BandMeeting {
  const needsTerrain = volume.lower.reference !== 'AGL' || volume.upper.reference !== 'AGL';
  if (!needsTerrain) return { meets: inMetres(volume.lower) <= maxAltitudeM && inMetres(volume.upper) >= 0, terrainUnknown: false };
  const terrain = model.terrainRange(box);
  if (!terrain) return { meets: true, terrainUnknown: true };
  const [west, south, east, north] = box;
  const geoid = model.geoidHeight((west + east) / 2, (south + north) / 2);
  const flightBottom = terrain.min;
  const flightTop = terrain.max + maxAltitudeM;
  const lowestLower = amsl(volume.lower, terrain.min, geoid);
  const highestUpper = amsl(volume.upper, terrain.max, geoid);
  return { meets: lowestLower <= flightTop && highestUpper >= flightBottom, terrainUnknown: false };
}

/** The limit in metres above mean sea level, with the ground at `ground` m AMSL and the geoid `geoid` m above the ellipsoid. */
function amsl(limit: VerticalLimit, ground: number, geoid: number): number {
  const metres = inMetres(limit);
  if (limit.reference === 'AGL') return ground + metres;
  if (limit.reference === 'WGS84') return metres - geoid;
  return metres;
}

/** `3000 ft AMSL`, `60 m AGL`: a limit as published, for messages. */
export function describeLimit(limit: VerticalLimit): string {
  return `${limit.value} ${limit.uom} ${limit.reference}`;
}
