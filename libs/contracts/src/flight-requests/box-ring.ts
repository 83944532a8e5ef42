/** West, south, east and north edges in degrees, as a GeoJSON `bbox` lists them. */
export type BoxBounds = readonly [west: number, south: number, east: number, north: number];

/**
 * The closed GeoJSON ring of the box whose south-west corner is `corner` and whose sides are
 * `size` degrees (one number for a square, `[width, height]` otherwise). The east and north
 * edges are rounded to the micro-degree (about 10 cm), as a client writes them: 5.1 + 0.01 is
 * 5.109999999999999 in binary floating point. Examples, tests and benchmarks build their areas
 * with it.
 */
export function boxRing(corner: readonly [number, number], size: number | readonly [number, number]): Array<[number, number]> {
  const [west, south] = corner;
  const [width, height] = typeof size === 'number' ? [size, size] : size;
  return boundsRing([west, south, toMicroDegree(west + width), toMicroDegree(south + height)]);
}

/**
 * The closed ring of the box with exactly these edges, counter-clockwise from its south-west
 * corner as RFC 7946 wants an exterior ring: for geometry that must meet another to the last bit.
 */
export function boundsRing([west, south, east, north]: BoxBounds): Array<[number, number]> {
  return [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
    [west, south],
  ];
}

function toMicroDegree(value: number): number {
  return Number(value.toFixed(6));
}
