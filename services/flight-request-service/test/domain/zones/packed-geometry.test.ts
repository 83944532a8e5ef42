import { expect } from 'chai';
import type { MultiPolygon, Polygon } from 'geojson';
import { packPolygonal, unpackPolygonal } from '../../../src/domain/zones/packed-geometry.js';
import { polygon, rectangle, roundRing } from '../geometry/fixtures.js';

describe('packed zone areas', () => {
  it('when a polygon with a hole and seven-decimal coordinates is packed, then it reads back exactly, one vertex in two numbers', () => {
    const area = polygon(roundRing(1_400, [4.8812345, 52.3098761], 0.2), rectangle(4.8712345, 52.2998761, 4.8912345, 52.3198761).reverse());
    const packed = packPolygonal(area);
    expect(packed?.coordinates.length).to.equal((1_400 + 5) * 2);
    expect(Array.from(packed?.ringEnds ?? [])).to.deep.equal([1_400, 1_405]);
    expect(unpackPolygonal(packed!)).to.deep.equal(area);
  });

  it('when a multipolygon is packed, then each polygon keeps its own rings, in order', () => {
    const area: MultiPolygon = {
      type: 'MultiPolygon',
      coordinates: [
        [rectangle(4, 52, 4.1, 52.1), rectangle(4.02, 52.02, 4.03, 52.03).reverse()],
        [rectangle(-0.1, -0.2, 0.1, 0.2)],
        [rectangle(179.9, -89.9, 180, -89.8)],
      ],
    };
    const packed = packPolygonal(area)!;
    expect(Array.from(packed.polygonEnds)).to.deep.equal([2, 3, 4]);
    expect(unpackPolygonal(packed)).to.deep.equal(area);
  });

  it('when a coordinate is -0 or carries every digit a double has, then the same number comes back', () => {
    const ring = [
      [-0, 0.1 + 0.2],
      [1e-12, 0],
      [Math.PI, 1 / 3],
      [-0, 0.1 + 0.2],
    ];
    const [first] = unpackPolygonal(packPolygonal(polygon(ring))!).coordinates[0]!;
    expect(Object.is(first![0], -0)).to.equal(true);
    expect(unpackPolygonal(packPolygonal(polygon(ring))!).coordinates[0]).to.deep.equal(ring);
  });

  it('when positions carry an altitude, then all three numbers come back', () => {
    const area = polygon(rectangle(4, 52, 4.1, 52.1).map(([x, y]) => [x!, y!, 12.5]));
    const packed = packPolygonal(area)!;
    expect(packed.dimensions).to.equal(3);
    expect(unpackPolygonal(packed)).to.deep.equal(area);
  });

  it('when positions differ in length, or the object has a bbox, then it is not packed', () => {
    expect(
      packPolygonal(
        polygon([
          [4, 52],
          [4.1, 52, 3],
          [4.1, 52.1],
          [4, 52],
        ]),
      ),
    ).to.equal(null);
    const boxed: Polygon = { ...polygon(rectangle(4, 52, 4.1, 52.1)), bbox: [4, 52, 4.1, 52.1] };
    expect(packPolygonal(boxed)).to.equal(null);
  });
});
