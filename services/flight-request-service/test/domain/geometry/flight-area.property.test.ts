import { expect } from 'chai';
import fc from 'fast-check';
import { checkFlightArea, checkZoneGeometry } from '../../../src/domain/geometry/flight-area.js';
import { collection, feature, polygon, rectangle } from './fixtures.js';

/** Either ok with an area, or field errors: lists of strings under non-empty paths. */
function isWellFormedVerdict(result: ReturnType<typeof checkFlightArea>): boolean {
  if (result.ok) return result.area.summary.feature_count === result.area.polygons.length;
  const entries = Object.entries(result.errors);
  return (
    entries.length > 0 && entries.every(([path, messages]) => path.length > 0 && messages.length > 0 && messages.every((m) => typeof m === 'string'))
  );
}

const valid = collection(
  feature(polygon(rectangle(4.89, 52.37, 4.9, 52.38))),
  feature({ type: 'Point', coordinates: [4.95, 52.4] }, { radius_m: 300 }),
  feature({ type: 'MultiPolygon', coordinates: [[rectangle(5, 52, 5.01, 52.01)]] }),
);

/** Replaces the value at a random path inside `value` (arrays and objects alike) with `replacement`. */
function mutate(value: unknown, steps: number[], replacement: unknown): unknown {
  const [step, ...rest] = steps;
  if (step === undefined || typeof value !== 'object' || value === null) return replacement;
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const copy = value.slice();
    const i = step % copy.length;
    copy[i] = mutate(copy[i], rest, replacement);
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[step % keys.length] as string;
  return { ...value, [key]: mutate((value as Record<string, unknown>)[key], rest, replacement) };
}

describe('checkFlightArea (properties)', () => {
  it('when given any JS value, then it never throws and returns ok or field errors', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true }), (input) =>
        isWellFormedVerdict(checkFlightArea(input)),
      ),
      { numRuns: 500 },
    );
  });

  it('when given any JSON value, then it never throws and returns ok or field errors', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => isWellFormedVerdict(checkFlightArea(input))),
      { numRuns: 500 },
    );
  });

  it('when one part of a valid collection is replaced by anything, then it never throws', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        fc.oneof(fc.anything(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e308, '__proto__')),
        (steps, replacement) => isWellFormedVerdict(checkFlightArea(mutate(valid, steps, replacement))),
      ),
      { numRuns: 1000 },
    );
  });

  it('when given a random small rectangle anywhere on the map, then it is accepted with a positive area and its own bbox', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -179, max: 178, noNaN: true }),
        fc.double({ min: -80, max: 79, noNaN: true }),
        fc.double({ min: 1e-4, max: 0.2, noNaN: true }),
        fc.double({ min: 1e-4, max: 0.2, noNaN: true }),
        fc.boolean(),
        (west, south, width, height, clockwise) => {
          const ring = rectangle(west, south, west + width, south + height);
          const result = checkFlightArea(collection(feature(polygon(clockwise ? ring.reverse() : ring))));
          if (!result.ok) return false;
          const [w, s, e, n] = result.area.summary.bbox;
          return result.area.summary.area_m2 > 0 && w === west && s === south && e === west + width && n === south + height;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('when checkZoneGeometry is given any JS value, then it never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = checkZoneGeometry(input);
        return result.ok || Object.keys(result.errors).length > 0;
      }),
      { numRuns: 500 },
    );
  });

  it('a sanity check of the generator: the valid collection is accepted', () => {
    expect(checkFlightArea(valid).ok).to.equal(true);
  });
});
