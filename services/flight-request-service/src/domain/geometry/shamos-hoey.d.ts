// shamos-hoey ships no types; this is the one call the geometry checks use.
declare module 'shamos-hoey' {
  import type { Feature, Geometry } from 'geojson';

  /** True when no two segments intersect (a simple geometry); stops at the first intersection. */
  export default function isSimple(geojson: Geometry | Feature): boolean;
}
