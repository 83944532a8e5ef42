import { expect } from 'chai';
import type { FeatureCollection, Polygon, Position } from 'geojson';
import { checkFlightArea, DEFAULT_FLIGHT_AREA_LIMITS, type CheckedFlightArea } from '../../../src/domain/geometry/flight-area.js';
import { collection, feature, polygon, rectangle, roundRing, signedArea } from './fixtures.js';

function accepted(input: unknown, limits = DEFAULT_FLIGHT_AREA_LIMITS): CheckedFlightArea {
  const result = checkFlightArea(input, limits);
  if (!result.ok) throw new Error(`expected the area to be accepted, got ${JSON.stringify(result.errors)}`);
  return result.area;
}

function refused(input: unknown, limits = DEFAULT_FLIGHT_AREA_LIMITS): Record<string, string[]> {
  const result = checkFlightArea(input, limits);
  if (result.ok) throw new Error('expected the area to be refused');
  return result.errors;
}

const AMSTERDAM = rectangle(4.89, 52.37, 4.9, 52.38);
const ring0 = 'flight_area.features.0.geometry.coordinates.0';

describe('checkFlightArea', () => {
  describe('the spec example shape', () => {
    it('when one Feature holds a Polygon and a properties object, then it is accepted with its summary', () => {
      const area = accepted(collection(feature(polygon(AMSTERDAM))));
      expect(area.summary.feature_count).to.equal(1);
      expect(area.summary.bbox).to.deep.equal([4.89, 52.37, 4.9, 52.38]);
      expect(area.summary.centroid[0]).to.be.closeTo(4.895, 1e-9);
      expect(area.summary.centroid[1]).to.be.closeTo(52.375, 1e-9);
      expect(area.summary.area_m2).to.be.within(750_000, 760_000);
      expect(area.polygons).to.have.length(1);
      expect(area.stored.features[0]?.geometry).to.deep.equal(polygon(AMSTERDAM));
    });

    it('when the properties object carries fields and the feature an id, then both are stored', () => {
      const area = accepted(collection({ ...feature(polygon(AMSTERDAM), { name: 'park' }), id: 'f1' }));
      expect(area.stored.features[0]?.properties).to.deep.equal({ name: 'park' });
      expect(area.stored.features[0]?.id).to.equal('f1');
    });
  });

  describe('the collection', () => {
    it('when the input is missing, then the flight area is required', () => {
      expect(refused(undefined)).to.deep.equal({ flight_area: ['The flight area field is required.'] });
    });

    it('when the input is not an object or not a FeatureCollection, then it says so', () => {
      expect(refused('polygon')).to.have.key('flight_area');
      expect(refused([1, 2])).to.have.key('flight_area');
      expect(refused({ type: 'Feature', features: [feature(polygon(AMSTERDAM))] })).to.deep.equal({
        'flight_area.type': ['The flight area.type field must be FeatureCollection.'],
      });
    });

    it('when the collection, a feature or a geometry carries a crs member (removed by RFC 7946), then each is refused by its path', () => {
      const crs = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::28992' } };
      const input = { ...collection({ ...feature({ ...polygon(AMSTERDAM), crs }), crs }), crs };
      const because = 'field is not allowed: RFC 7946 removed crs, coordinates are WGS 84 longitude and latitude.';
      expect(refused(input)).to.deep.equal({
        'flight_area.crs': [`The flight area.crs ${because}`],
        'flight_area.features.0.crs': [`The flight area.features.0.crs ${because}`],
        'flight_area.features.0.geometry.crs': [`The flight area.features.0.geometry.crs ${because}`],
      });
      expect(refused({ ...collection(feature(polygon(AMSTERDAM))), crs: null })).to.have.key('flight_area.crs');
    });

    it('when features is empty, then at least one feature is needed', () => {
      expect(refused(collection())).to.deep.equal({
        'flight_area.features': ['The flight area.features field must have at least 1 items.'],
      });
    });

    it('when there are 50 features, then it is accepted; 51, then refused', () => {
      const features = Array.from({ length: 51 }, (_, i) => feature(polygon(rectangle(4 + i * 0.01, 52, 4.005 + i * 0.01, 52.005))));
      expect(accepted(collection(...features.slice(0, 50))).summary.feature_count).to.equal(50);
      expect(refused(collection(...features))).to.deep.equal({
        'flight_area.features': ['The flight area.features field must not have more than 50 items.'],
      });
    });

    it('when the field is named otherwise, then the paths use that name', () => {
      const result = checkFlightArea(collection(), DEFAULT_FLIGHT_AREA_LIMITS, 'area');
      expect(result).to.deep.equal({ ok: false, errors: { 'area.features': ['The area.features field must have at least 1 items.'] } });
    });
  });

  describe('each feature', () => {
    it('when type, properties or geometry are wrong, then every failing field is reported at once', () => {
      const errors = refused(
        collection(
          { type: 'Feat', properties: {}, geometry: polygon(AMSTERDAM) },
          { type: 'Feature', properties: null, geometry: polygon(AMSTERDAM) },
          { type: 'Feature', geometry: polygon(AMSTERDAM) },
          feature({
            type: 'LineString',
            coordinates: [
              [0, 0],
              [1, 1],
            ],
          }),
          feature(null),
          null,
        ),
      );
      expect(errors).to.deep.equal({
        'flight_area.features.0.type': ['The flight area.features.0.type field must be Feature.'],
        'flight_area.features.1.properties': ['The flight area.features.1.properties field must be an object.'],
        'flight_area.features.2.properties': ['The flight area.features.2.properties field is required (an object, it may be empty).'],
        'flight_area.features.3.geometry.type': ['The flight area.features.3.geometry.type field must be one of: Polygon, MultiPolygon, Point.'],
        'flight_area.features.4.geometry': ['The flight area.features.4.geometry field is required.'],
        'flight_area.features.5': ['The flight area.features.5 field must be a GeoJSON Feature object.'],
      });
    });

    it('when a geometry has no coordinates, then they are required', () => {
      expect(refused(collection(feature({ type: 'Polygon' })))).to.deep.equal({
        'flight_area.features.0.geometry.coordinates': ['The flight area.features.0.geometry.coordinates field is required.'],
      });
    });
  });

  describe('positions', () => {
    it('when a position holds a string, NaN, Infinity or 4 numbers, then that position is named', () => {
      const ring: unknown[] = [
        [0, 0],
        ['1', 0],
        [1, Number.NaN],
        [Number.POSITIVE_INFINITY, 1],
        [0, 1, 2, 3],
        [0, 0],
      ];
      const errors = refused(collection(feature({ type: 'Polygon', coordinates: [ring] })));
      expect(Object.keys(errors)).to.deep.equal([1, 2, 3, 4].map((i) => `${ring0}.${i}`));
      expect(errors[`${ring0}.1`]).to.deep.equal([
        `The flight area.features.0.geometry.coordinates.0.1 field must be a position of 2 or 3 numbers [longitude, latitude].`,
      ]);
    });

    it('when a position has an altitude, then it is accepted and kept', () => {
      const ring = AMSTERDAM.map(([x, y]) => [x as number, y as number, 30]);
      expect(accepted(collection(feature(polygon(ring)))).stored.features[0]?.geometry).to.deep.equal(polygon(ring));
    });

    it('when the longitude is 180, then it is accepted; 180.0001, then refused', () => {
      accepted(collection(feature(polygon(rectangle(179.9, 0, 180, 0.1)))));
      const errors = refused(collection(feature(polygon(rectangle(179.9, 0, 180.0001, 0.1)))));
      expect(errors[`${ring0}.1`]).to.deep.equal(['The flight area.features.0.geometry.coordinates.0.1 longitude must be between -180 and 180.']);
    });

    it('when the latitude is -90, then it is accepted; -90.0001, then refused', () => {
      accepted(collection(feature(polygon(rectangle(0, -90, 0.1, -89.9)))));
      const errors = refused(collection(feature(polygon(rectangle(0, -90.0001, 0.1, -89.9)))));
      expect(errors[`${ring0}.0`]).to.deep.equal(['The flight area.features.0.geometry.coordinates.0.0 latitude must be between -90 and 90.']);
    });

    it('when there are 10,000 positions in all, then it is accepted; 10,001, then refused before any deep check', () => {
      accepted(collection(feature(polygon(roundRing(10_000, [5, 52])))));
      const errors = refused(collection(feature(polygon(roundRing(9_996, [5, 52]))), feature(polygon(AMSTERDAM))));
      expect(errors).to.deep.equal({
        flight_area: ['The flight area must not have more than 10000 positions in all (it has 10001).'],
      });
    });

    it('when a million garbage positions arrive, then only the count is reported', () => {
      const errors = refused(collection(feature({ type: 'Polygon', coordinates: [new Array(1_000_000).fill('x')] })));
      expect(errors).to.deep.equal({
        flight_area: ['The flight area must not have more than 10000 positions in all (it has 1000000).'],
      });
    });
  });

  describe('rings', () => {
    it('when a ring is open, then it must be closed', () => {
      const errors = refused(collection(feature(polygon(AMSTERDAM.slice(0, 4).concat([[4.891, 52.371]])))));
      expect(errors).to.deep.equal({
        [ring0]: ['The flight area.features.0.geometry.coordinates.0 ring must be closed (first and last positions equal).'],
      });
    });

    it('when a ring crosses the antimeridian, then it is refused with how to split it (RFC 7946 §3.1.9)', () => {
      const crossing = [
        [179.9, 0],
        [-179.9, 0],
        [-179.9, 0.1],
        [179.9, 0.1],
        [179.9, 0],
      ];
      expect(refused(collection(feature(polygon(crossing))))).to.deep.equal({
        [ring0]: [
          'The flight area.features.0.geometry.coordinates.0 ring crosses the antimeridian: split it at longitude 180 ' +
            'into a MultiPolygon (one polygon each side), as RFC 7946 section 3.1.9 requires.',
        ],
      });
      const split = { type: 'MultiPolygon', coordinates: [[rectangle(179.9, 0, 180, 0.1)], [rectangle(-180, 0, -179.9, 0.1)]] };
      expect(accepted(collection(feature(split))).summary.area_m2).to.be.within(2.4e8, 2.6e8);
    });

    it('when a ring has 3 positions, then it needs at least 4', () => {
      const errors = refused(
        collection(
          feature(
            polygon([
              [0, 0],
              [1, 0],
              [0, 0],
            ]),
          ),
        ),
      );
      expect(errors).to.deep.equal({ [ring0]: ['The flight area.features.0.geometry.coordinates.0 ring must have at least 4 positions.'] });
    });

    it('when a ring is a bowtie, then it must not intersect itself', () => {
      const errors = refused(
        collection(
          feature(
            polygon([
              [0, 0],
              [1, 1],
              [1, 0],
              [0, 1],
              [0, 0],
            ]),
          ),
        ),
      );
      expect(errors).to.deep.equal({ [ring0]: ['The flight area.features.0.geometry.coordinates.0 ring must not intersect itself.'] });
    });

    it('when a ring touches itself at a vertex or doubles back, then it must not intersect itself', () => {
      const figureEight = [
        [0, 0],
        [1, 1],
        [2, 0],
        [2, 2],
        [1, 1],
        [0, 2],
        [0, 0],
      ];
      const spike = [
        [0, 0],
        [0.2, 0],
        [0.1, 0],
        [0.1, 0.1],
        [0, 0],
      ];
      const errors = refused(collection(feature(polygon(figureEight)), feature(polygon(spike))));
      expect(Object.keys(errors)).to.deep.equal([ring0, 'flight_area.features.1.geometry.coordinates.0']);
    });

    it('when a 10,000-position star crosses itself everywhere, then it is refused fast', () => {
      const star: Position[] = [];
      for (let i = 0; i < 9_999; i += 1) {
        const angle = (2 * Math.PI * ((i * 4_999) % 9_999)) / 9_999;
        star.push([5 + 0.01 * Math.cos(angle), 52 + 0.01 * Math.sin(angle)]);
      }
      star.push(star[0] as Position);
      expect(refused(collection(feature(polygon(star))))).to.have.key(ring0);
    });

    it('when a ring encloses no area, then it is refused', () => {
      const errors = refused(
        collection(
          feature(
            polygon([
              [0, 0],
              [1, 0],
              [1, 0],
              [0, 0],
            ]),
          ),
        ),
      );
      expect(errors).to.deep.equal({ [ring0]: ['The flight area.features.0.geometry.coordinates.0 ring must enclose a non-zero area.'] });
    });

    it('when repeated consecutive positions come from a drawing tool, then they are tolerated', () => {
      const ring = [
        [4.89, 52.37],
        [4.9, 52.37],
        [4.9, 52.37],
        [4.9, 52.38],
        [4.89, 52.38],
        [4.89, 52.37],
      ];
      accepted(collection(feature(polygon(ring))));
    });

    it('when a hole lies inside its shell, then it is accepted and its area subtracted', () => {
      const holed = accepted(collection(feature(polygon(rectangle(4, 52, 4.1, 52.1), rectangle(4.02, 52.02, 4.04, 52.04)))));
      const solid = accepted(collection(feature(polygon(rectangle(4, 52, 4.1, 52.1)))));
      expect(holed.summary.area_m2).to.be.below(solid.summary.area_m2);
    });

    it('when a hole lies outside its shell, then the hole is named', () => {
      const errors = refused(collection(feature(polygon(rectangle(4, 52, 4.1, 52.1), rectangle(5, 53, 5.1, 53.1)))));
      expect(errors).to.deep.equal({
        'flight_area.features.0.geometry.coordinates.1': [
          'The flight area.features.0.geometry.coordinates.1 ring (a hole) must lie inside its shell.',
        ],
      });
    });
  });

  describe('winding', () => {
    it('when the exterior runs clockwise and the hole counter-clockwise, then the stored geometry follows the right-hand rule', () => {
      const clockwiseShell = rectangle(4, 52, 4.1, 52.1).reverse();
      const counterClockwiseHole = rectangle(4.02, 52.02, 4.04, 52.04);
      const stored = accepted(collection(feature(polygon(clockwiseShell, counterClockwiseHole)))).stored;
      const [shell, hole] = (stored.features[0]?.geometry as Polygon).coordinates;
      expect(signedArea(shell as Position[])).to.be.above(0);
      expect(signedArea(hole as Position[])).to.be.below(0);
    });

    it('when the exterior already runs counter-clockwise, then it is stored unchanged', () => {
      const stored = accepted(collection(feature(polygon(AMSTERDAM)))).stored;
      expect((stored.features[0]?.geometry as Polygon).coordinates[0]).to.deep.equal(AMSTERDAM);
    });
  });

  describe('MultiPolygon', () => {
    it('when a MultiPolygon is valid, then it is accepted, right-handed, as one feature', () => {
      const geometry = { type: 'MultiPolygon', coordinates: [[rectangle(4, 52, 4.01, 52.01).reverse()], [rectangle(4.1, 52, 4.11, 52.01)]] };
      const area = accepted(collection(feature(geometry)));
      const stored = area.stored.features[0]?.geometry as { coordinates: Position[][][] };
      expect(stored.coordinates.map((rings) => signedArea(rings[0] as Position[]) > 0)).to.deep.equal([true, true]);
      expect(area.summary.feature_count).to.equal(1);
    });

    it('when one of its polygons is broken, then the path names that polygon', () => {
      const geometry = {
        type: 'MultiPolygon',
        coordinates: [
          [rectangle(4, 52, 4.01, 52.01)],
          [
            [
              [0, 0],
              [1, 1],
              [1, 0],
              [0, 1],
              [0, 0],
            ],
          ],
        ],
      };
      expect(refused(collection(feature(geometry)))).to.have.key('flight_area.features.0.geometry.coordinates.1.0');
    });
  });

  describe('circles', () => {
    const point = { type: 'Point', coordinates: [4.9, 52.37] };

    it('when radius_m is 1 or 5000, then the circle is accepted as a 64-gon and stored as submitted', () => {
      for (const radius of [1, 5000]) {
        const area = accepted(collection(feature(point, { radius_m: radius })));
        expect(area.stored.features[0]?.geometry).to.deep.equal(point);
        expect((area.polygons[0]?.geometry as Polygon).coordinates[0]).to.have.length(65);
        expect(area.summary.area_m2).to.be.closeTo(Math.PI * radius * radius, Math.PI * radius * radius * 0.01);
      }
    });

    it('when radius_m is 0, 5001, missing or a string, then radius_m is named', () => {
      const errors = refused(
        collection(feature(point, { radius_m: 0 }), feature(point, { radius_m: 5001 }), feature(point, {}), feature(point, { radius_m: '100' })),
      );
      expect(errors).to.deep.equal({
        'flight_area.features.0.properties.radius_m': ['The flight area.features.0.properties.radius m field must be between 1 and 5000.'],
        'flight_area.features.1.properties.radius_m': ['The flight area.features.1.properties.radius m field must be between 1 and 5000.'],
        'flight_area.features.2.properties.radius_m': [
          'The flight area.features.2.properties.radius m field is required when the geometry is a Point.',
        ],
        'flight_area.features.3.properties.radius_m': ['The flight area.features.3.properties.radius m field must be a number.'],
      });
    });

    it('when a circle would cross a pole or the antimeridian, then it is refused', () => {
      const errors = refused(
        collection(
          feature({ type: 'Point', coordinates: [0, 89.99] }, { radius_m: 5000 }),
          feature({ type: 'Point', coordinates: [179.99, 0] }, { radius_m: 5000 }),
        ),
      );
      expect(Object.keys(errors)).to.deep.equal(['flight_area.features.0.geometry', 'flight_area.features.1.geometry']);
    });
  });

  describe('total area', () => {
    const square = collection(feature(polygon(rectangle(4, 52, 4.1, 52.1))));
    const squareArea = accepted(square).summary.area_m2;

    it('when the area is just under the limit, then it is accepted; just over, then refused', () => {
      accepted(square, { ...DEFAULT_FLIGHT_AREA_LIMITS, maxAreaM2: squareArea + 1 });
      const errors = refused(square, { ...DEFAULT_FLIGHT_AREA_LIMITS, maxAreaM2: squareArea - 1 });
      expect(errors).to.have.key('flight_area');
    });

    it('when the default 1,000 km² limit is met, then 971 km² passes and 1,040 km² is refused', () => {
      accepted(collection(feature(polygon(rectangle(0, 0, 0.28, 0.28)))));
      expect(refused(collection(feature(polygon(rectangle(0, 0, 0.29, 0.29)))))).to.deep.equal({
        flight_area: ['The flight area must not cover more than 1000 km² (it covers 1039.84 km²).'],
      });
    });

    it('when features overlap, then the total is the sum of their areas', () => {
      const same = feature(polygon(rectangle(4, 52, 4.1, 52.1)));
      expect(accepted(collection(same, same)).summary.area_m2).to.be.closeTo(2 * squareArea, 1);
    });

    it('when 50 overlapping 200-gons arrive, then all 50 are accepted and summarised', () => {
      const features = Array.from({ length: 50 }, (_, i) => feature(polygon(roundRing(200, [5 + i * 0.001, 52], 0.02))));
      expect(accepted(collection(...features)).summary.feature_count).to.equal(50);
    });
  });

  describe('hostile input', () => {
    it('when keys are __proto__ or inherited, then they are ignored rather than trusted', () => {
      const inherited = Object.create({ type: 'FeatureCollection', features: [feature(polygon(AMSTERDAM))] }) as object;
      expect(refused(inherited)).to.have.keys('flight_area.type', 'flight_area.features');
      const parsed: unknown = JSON.parse(
        '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"__proto__":{"radius_m":10}},"geometry":{"type":"Point","coordinates":[4.9,52.37]}}]}',
      );
      expect(refused(parsed)).to.have.key('flight_area.features.0.properties.radius_m');
    });

    it('when a getter throws, then the result is a field error, not an exception', () => {
      const hostile = {
        type: 'FeatureCollection',
        get features(): never {
          throw new Error('boom');
        },
      };
      expect(checkFlightArea(hostile)).to.deep.equal({ ok: false, errors: { flight_area: ['The flight area field is invalid.'] } });
    });

    it('when arrays nest deeply where a position belongs, then the position is refused', () => {
      let deep: unknown = [0, 0];
      for (let i = 0; i < 10_000; i += 1) deep = [deep];
      const errors = refused(collection(feature({ type: 'Polygon', coordinates: [[deep, deep, deep, deep]] })));
      expect(errors).to.have.keys([0, 1, 2, 3].map((i) => `${ring0}.${i}`));
    });

    it('when hundreds of positions are wrong, then the report stays bounded', () => {
      const ring = new Array(5_000).fill(['x', 'y']);
      expect(Object.keys(refused(collection(feature({ type: 'Polygon', coordinates: [ring] }))))).to.have.length(100);
    });
  });

  it('keeps the stored collection a FeatureCollection', () => {
    const stored: FeatureCollection = accepted(collection(feature(polygon(AMSTERDAM)))).stored;
    expect(stored.type).to.equal('FeatureCollection');
  });
});
