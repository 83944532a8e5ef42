import type { BBox } from '../geometry/flight-area.js';
import type { VerticalLimit, ZoneVolume } from './geo-zone.js';

/*
 * Zone limits are held as published (AGL, AMSL or WGS-84 heights, in metres or
 * feet) and compared with a flight volume's band: its own limits, or [0,
 * max_altitude] metres above the ground under it for a request without volumes. Comparing across references needs the ground's
 * height above mean sea level over the flight area (a terrain model) and the
 * geoid's height above the ellipsoid (EGM96); both come through `VerticalModel`.
 *
 * Every comparison is conservative: an AGL limit, the flight's or the zone's, is
 * taken anywhere between the lowest and highest ground of the flight area, so a
 * zone that could be met counts as met. Without terrain, a zone whose limits
 * and the flight's are not all of one kind (above ground, or not) counts as met.
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

/**
 * Whether a flight band (its lower and upper limit, each in its reference) over
 * `box` meets the zone volume's band. Limits all above ground, or none of them,
 * compare without terrain; a mix needs the ground's range, and every limit is
 * then taken at its lowest and highest possible height above mean sea level.
 */
export function flightBandMeets(
  volume: Pick<ZoneVolume, 'lower' | 'upper'>,
  flight: { lower: VerticalLimit; upper: VerticalLimit },
  box: BBox,
  model: VerticalModel,
): BandMeeting {
  const limits = [volume.lower, volume.upper, flight.lower, flight.upper];
  const [west, south, east, north] = box;
  if (limits.every((limit) => limit.reference === 'AGL')) {
    return { meets: inMetres(volume.lower) <= inMetres(flight.upper) && inMetres(volume.upper) >= inMetres(flight.lower), terrainUnknown: false };
  }
  const geoid = model.geoidHeight((west + east) / 2, (south + north) / 2);
  if (limits.every((limit) => limit.reference !== 'AGL')) {
    const flat = { min: 0, max: 0 };
    return { meets: overlaps(volume, flight, flat, geoid), terrainUnknown: false };
  }
  const terrain = model.terrainRange(box);
  if (!terrain) return { meets: true, terrainUnknown: true };
  return { meets: overlaps(volume, flight, terrain, geoid), terrainUnknown: false };
}

function overlaps(
  volume: Pick<ZoneVolume, 'lower' | 'upper'>,
  flight: { lower: VerticalLimit; upper: VerticalLimit },
  terrain: TerrainRange,
  geoid: number,
): boolean {
  const lowestZone = amsl(volume.lower, terrain.min, geoid);
  const highestZone = amsl(volume.upper, terrain.max, geoid);
  const lowestFlight = amsl(flight.lower, terrain.min, geoid);
  const highestFlight = amsl(flight.upper, terrain.max, geoid);
  return lowestZone <= highestFlight && highestZone >= lowestFlight;
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
