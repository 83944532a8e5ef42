import { area } from '@turf/area';
import { booleanWithin } from '@turf/boolean-within';
import { kinks } from '@turf/kinks';
import type { Polygon } from 'geojson';
import isSimple from 'shamos-hoey';
import { at, attribute, type FieldErrorBag } from './field-errors.js';
import { samePoint, type PolygonRings, type Ring } from './structure.js';

/*
 * Topology of structurally valid polygons, with libraries rather than hand-written geometry:
 * - shamos-hoey: an O(n log n) sweep that stops at the first crossing. It runs before
 *   @turf/kinks, which compares every pair of segments and materialises every intersection:
 *   a 10,000-position star polygon would yield ~25 million points and exhaust memory.
 * - @turf/kinks: the exact test, for what the sweep lets through (a spike doubling back
 *   along the previous segment, a vertex touching another edge). It is quadratic (0.7 s
 *   for one 10,000-position ring), so it runs on rings of up to 1,000 positions, which
 *   bounds its work to about 10 million segment pairs per area; longer rings rely on the
 *   sweep and the repeated-vertex test alone.
 * - @turf/area: geodesic area, so a ring that encloses nothing is refused.
 * - @turf/boolean-within: every hole lies inside its shell.
 * Any exception from a library becomes a field error: the checks never throw.
 */

/** Adds the polygon's errors under `path` (its coordinates) and tells whether it is valid. */
export function checkPolygonTopology(rings: PolygonRings, path: string, errors: FieldErrorBag): boolean {
  let valid = true;
  const simple = rings.map((ring, index) => {
    const ok = checkRing(ring, at(path, index), errors);
    valid &&= ok;
    return ok;
  });
  const [shell, ...holes] = rings;
  if (!shell || !simple[0]) return valid;
  holes.forEach((hole, i) => {
    if (simple[i + 1] && !holeInside(hole, shell)) {
      const holePath = at(path, i + 1);
      errors.add(holePath, `The ${attribute(holePath)} ring (a hole) must lie inside its shell.`);
      valid = false;
    }
  });
  return valid;
}

function checkRing(ring: Ring, path: string, errors: FieldErrorBag): boolean {
  const distinct = withoutRepeats(ring);
  const polygon: Polygon = { type: 'Polygon', coordinates: [distinct] };
  if (distinct.length >= 4 && (touchesItself(distinct) || !safely(() => isSimple(polygon)) || hasKinks(polygon))) {
    errors.add(path, `The ${attribute(path)} ring must not intersect itself.`);
    return false;
  }
  if (distinct.length < 4 || !(safely(() => area(polygon)) ?? 0)) {
    errors.add(path, `The ${attribute(path)} ring must enclose a non-zero area.`);
    return false;
  }
  return true;
}

/** Consecutive repeated positions are harmless noise from drawing tools; the checks ignore them. */
function withoutRepeats(ring: Ring): Ring {
  return ring.filter((position, i) => i === 0 || !samePoint(position, ring[i - 1]));
}

/**
 * A position visited twice (besides the closing one) is a ring touching itself. Checked
 * first because a "flower" of many loops through one point slips past the sweep and would
 * give kinks a quadratic number of intersections.
 */
function touchesItself(ring: Ring): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < ring.length - 1; i += 1) {
    const position = ring[i] as Ring[number];
    const key = `${position[0]},${position[1]}`;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/** Rings up to this many positions also get the exact, quadratic @turf/kinks test. */
export const KINKS_MAX_POSITIONS = 1000;

function hasKinks(polygon: Polygon): boolean {
  const ring = polygon.coordinates[0] ?? [];
  if (ring.length > KINKS_MAX_POSITIONS) return false;
  return safely(() => kinks(polygon).features.length > 0) ?? true;
}

function holeInside(hole: Ring, shell: Ring): boolean {
  return safely(() => booleanWithin({ type: 'Polygon', coordinates: [hole] }, { type: 'Polygon', coordinates: [shell] })) ?? false;
}

/** Runs a library call; an exception (a library bug on odd input) yields undefined instead. */
export function safely<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}
