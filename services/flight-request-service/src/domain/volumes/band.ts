import type { Altitude, AltitudeReference } from '@dfc/contracts';
import type { BBox } from '../geometry/flight-area.js';
import { FEET_TO_METRES, type VerticalModel } from '../zones/vertical.js';

/*
 * A volume's altitude band, compared with another volume's (deconfliction):
 * exactly in their own reference when both bands share one, otherwise above
 * mean sea level, conservatively. An AGL band then spans the lowest ground of
 * its area plus its lower limit to the highest ground plus its upper one; a
 * WGS-84 band is shifted by the geoid's lowest and highest height over its
 * area (EGM96). Where no terrain covers an AGL band's area it cannot be placed
 * above sea level at all, and it counts as meeting every band of another
 * reference.
 */

export function metresOf(altitude: Pick<Altitude, 'value' | 'units'>): number {
  return altitude.units === 'ft' ? altitude.value * FEET_TO_METRES : altitude.value;
}

export interface Band {
  /** The reference of both limits. */
  reference: AltitudeReference;
  lower_m: number;
  upper_m: number;
  /** The band above mean sea level, widened as said above; null for an AGL band where no terrain is known. */
  amsl_lower_m: number | null;
  amsl_upper_m: number | null;
}

export function bandOf(lower: Altitude, upper: Altitude, box: BBox, model: VerticalModel): Band {
  const lower_m = metresOf(lower);
  const upper_m = metresOf(upper);
  const reference = lower.reference;
  if (reference === 'AMSL') return { reference, lower_m, upper_m, amsl_lower_m: lower_m, amsl_upper_m: upper_m };
  if (reference === 'WGS84') {
    const [lowest, highest] = geoidRange(box, model);
    return { reference, lower_m, upper_m, amsl_lower_m: lower_m - highest, amsl_upper_m: upper_m - lowest };
  }
  const terrain = model.terrainRange(box);
  return terrain
    ? { reference, lower_m, upper_m, amsl_lower_m: terrain.min + lower_m, amsl_upper_m: terrain.max + upper_m }
    : { reference, lower_m, upper_m, amsl_lower_m: null, amsl_upper_m: null };
}

/** Whether two bands share a height (half-open: a band touching another at one height shares nothing). */
export function bandsOverlap(a: Band, b: Band): boolean {
  if (a.reference === b.reference) return a.lower_m < b.upper_m && b.lower_m < a.upper_m;
  if (a.amsl_lower_m === null || a.amsl_upper_m === null || b.amsl_lower_m === null || b.amsl_upper_m === null) return true;
  return a.amsl_lower_m < b.amsl_upper_m && b.amsl_lower_m < a.amsl_upper_m;
}

/** The heights two overlapping bands share, in their reference, or above mean sea level when they have different ones. */
export function sharedBand(a: Band, b: Band): { reference: AltitudeReference; lower_m: number; upper_m: number } {
  if (a.reference === b.reference)
    return { reference: a.reference, lower_m: Math.max(a.lower_m, b.lower_m), upper_m: Math.min(a.upper_m, b.upper_m) };
  const placed = [a, b].filter((band) => band.amsl_lower_m !== null && band.amsl_upper_m !== null);
  return {
    reference: 'AMSL',
    lower_m: Math.max(...placed.map((band) => band.amsl_lower_m as number)),
    upper_m: Math.min(...placed.map((band) => band.amsl_upper_m as number)),
  };
}

/**
 * The greatest height above the ground a limit reaches over `box`, in metres:
 * what max_altitude, the altitude review and CTR exemption ceilings read. An
 * AMSL or WGS-84 limit is measured from the lowest ground of the area; where no
 * terrain is known, from mean sea level.
 */
export function heightAboveGround(limit: Altitude, box: BBox, model: VerticalModel): number {
  const metres = metresOf(limit);
  if (limit.reference === 'AGL') return metres;
  const ground = model.terrainRange(box)?.min ?? 0;
  const [west, south, east, north] = box;
  const amsl = limit.reference === 'WGS84' ? metres - model.geoidHeight((west + east) / 2, (south + north) / 2) : metres;
  return amsl - ground;
}

/** The geoid's lowest and highest height over the box, from its corners and centre (EGM96 varies smoothly at this scale). */
function geoidRange(box: BBox, model: VerticalModel): [number, number] {
  const [west, south, east, north] = box;
  const samples = [
    [west, south],
    [west, north],
    [east, south],
    [east, north],
    [(west + east) / 2, (south + north) / 2],
  ].map(([longitude, latitude]) => model.geoidHeight(longitude as number, latitude as number));
  return [Math.min(...samples), Math.max(...samples)];
}
