import { expect } from 'chai';
import { ownFormatParts } from '../../../src/domain/zones/geo-zone.js';
import { parseZoneImport } from '../../../src/domain/zones/parse-zone-import.js';
import { polygon, rectangle } from '../geometry/fixtures.js';

const properties = {
  name: 'Naardermeer',
  type: 'NATURE',
  restriction: 'CONDITIONAL',
  lower_limit_m: 0,
  upper_limit_m: 300,
  authority: 'NATURE',
};
const geometry = polygon(rectangle(5.09, 52.28, 5.13, 52.31));
const zoneFeature = (extra: Record<string, unknown> = {}) => ({ type: 'Feature', properties: { ...properties }, geometry, ...extra });

describe('parseZoneImport', () => {
  it('when every feature is a valid zone, then each entry carries its zone and id', () => {
    const result = parseZoneImport({
      type: 'FeatureCollection',
      features: [zoneFeature({ id: 'nl-naardermeer' }), zoneFeature({ properties: { ...properties, id: 'nl-other' } }), zoneFeature()],
    });
    expect(result.ok).to.equal(true);
    expect(result.errors).to.deep.equal({});
    expect(result.entries.map((entry) => [entry.index, entry.id, entry.ok])).to.deep.equal([
      [0, 'nl-naardermeer', true],
      [1, 'nl-other', true],
      [2, null, true],
    ]);
    const zone = { ...properties, schedule: null, ctr_exemption_ceiling_m: null, geometry };
    expect(result.format).to.equal('own');
    expect(result.entries[0]?.ok && result.entries[0].zone).to.deep.equal({ ...zone, ...ownFormatParts(zone) });
  });

  it('when features fail, then each error path starts at features.N and the good ones still parse', () => {
    const result = parseZoneImport({
      type: 'FeatureCollection',
      features: [
        zoneFeature(),
        zoneFeature({ properties: { ...properties, name: '' } }),
        zoneFeature({
          geometry: polygon([
            [0, 0],
            [1, 1],
            [1, 0],
            [0, 1],
            [0, 0],
          ]),
        }),
        'not a feature',
      ],
    });
    expect(result.ok).to.equal(false);
    expect(result.errors).to.deep.equal({
      'features.1.properties.name': ['The features.1.properties.name field is required.'],
      'features.2.geometry.coordinates.0': ['The features.2.geometry.coordinates.0 ring must not intersect itself.'],
      'features.3': ['The features.3 field must be an object.'],
    });
    expect(result.entries.map((entry) => entry.ok)).to.deep.equal([true, false, false, false]);
  });

  it('when two features name the same id, or a feature names two ids, then they are refused', () => {
    const result = parseZoneImport({
      type: 'FeatureCollection',
      features: [zoneFeature({ id: 'a' }), zoneFeature({ id: 'a' }), zoneFeature({ id: 'b', properties: { ...properties, id: 'c' } })],
    });
    expect(result.errors).to.deep.equal({
      'features.1.id': ['The features.1.id field repeats the id of features.0.'],
      'features.2.id': ['The features.2.id field must match features.2.properties.id.'],
    });
  });

  it('when the collection, a feature or a geometry carries crs (removed by RFC 7946), then each is named and nothing parses', () => {
    const crs = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::28992' } };
    const result = parseZoneImport({
      type: 'FeatureCollection',
      crs,
      features: [zoneFeature({ crs }), zoneFeature({ geometry: { ...geometry, crs } })],
    });
    expect(result.ok).to.equal(false);
    expect(Object.keys(result.errors).sort()).to.deep.equal(['crs', 'features.0.crs', 'features.1.geometry.crs']);
  });

  it('when the collection itself is wrong, then its own fields are named', () => {
    expect(parseZoneImport({ type: 'Feature', features: [] }).errors).to.deep.equal({
      type: ['The selected type is invalid.'],
      features: ['The features field must have at least 1 items.'],
    });
    expect(parseZoneImport(null).errors).to.have.key('body');
  });

  it('when there are more than 5,000 features, then the import is refused without reading them', () => {
    const result = parseZoneImport({ type: 'FeatureCollection', features: new Array(5_001).fill(null) });
    expect(result).to.deep.equal({
      format: 'own',
      dataset: null,
      ok: false,
      errors: { features: ['The features field must not have more than 5000 items.'] },
      entries: [],
    });
  });
});
