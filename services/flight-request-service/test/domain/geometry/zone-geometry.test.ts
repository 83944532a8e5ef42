import { expect } from 'chai';
import type { Position } from 'geojson';
import { checkZoneGeometry } from '../../../src/domain/geometry/flight-area.js';
import { polygon, rectangle, signedArea } from './fixtures.js';

describe('checkZoneGeometry', () => {
  it('when the geometry is a clockwise Polygon, then it is accepted and rewound counter-clockwise', () => {
    const result = checkZoneGeometry(polygon(rectangle(4, 52, 5, 53).reverse()));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.geometry.type).to.equal('Polygon');
    expect(signedArea(result.geometry.coordinates[0] as Position[])).to.be.above(0);
  });

  it('when the geometry is a MultiPolygon, then it is accepted', () => {
    const result = checkZoneGeometry({ type: 'MultiPolygon', coordinates: [[rectangle(4, 52, 5, 53)], [rectangle(6, 52, 7, 53)]] });
    expect(result.ok).to.equal(true);
  });

  it('when the zone is larger than a flight area may be, then no area limit applies', () => {
    expect(checkZoneGeometry(polygon(rectangle(3, 50, 8, 54))).ok).to.equal(true);
  });

  it('when the geometry is a Point circle, then only Polygon and MultiPolygon are allowed', () => {
    expect(checkZoneGeometry({ type: 'Point', coordinates: [4, 52] })).to.deep.equal({
      ok: false,
      errors: { 'geometry.type': ['The geometry.type field must be one of: Polygon, MultiPolygon.'] },
    });
  });

  it('when the geometry is missing or a ring crosses itself, then the paths start at the field name', () => {
    expect(checkZoneGeometry(undefined)).to.deep.equal({ ok: false, errors: { geometry: ['The geometry field is required.'] } });
    const result = checkZoneGeometry(
      polygon([
        [0, 0],
        [1, 1],
        [1, 0],
        [0, 1],
        [0, 0],
      ]),
      'features.2.geometry',
    );
    expect(result).to.deep.equal({
      ok: false,
      errors: { 'features.2.geometry.coordinates.0': ['The features.2.geometry.coordinates.0 ring must not intersect itself.'] },
    });
  });
});
