import { expect } from 'chai';
import { ownFormatParts, type GeoZone } from '../../../src/domain/zones/geo-zone.js';
import { ZoneIndex } from '../../../src/domain/zones/zone-index.js';
import { polygon, rectangle } from '../geometry/fixtures.js';

function zone(id: string, west: number, south: number, size = 0.1): GeoZone {
  const fields: Omit<GeoZone, 'identifier' | 'country' | 'volumes' | 'applicability' | 'published' | 'dataset_id'> = {
    id,
    name: `Zone ${id}`,
    type: 'OTHER',
    restriction: 'CONDITIONAL',
    lower_limit_m: 0,
    upper_limit_m: 500,
    schedule: null,
    authority: 'NATIONAL',
    ctr_exemption_ceiling_m: null,
    geometry: polygon(rectangle(west, south, west + size, south + size)),
  };
  return { ...fields, ...ownFormatParts(fields) };
}

const ids = (zones: GeoZone[]) => zones.map((z) => z.id);

describe('ZoneIndex', () => {
  it('when searching a box, then it returns the zones whose bounds meet it, ordered by id', () => {
    const index = new ZoneIndex([zone('c', 4, 52), zone('a', 4.05, 52.05), zone('b', 6, 53)]);
    expect(ids(index.search([4.06, 52.06, 4.07, 52.07]))).to.deep.equal(['a', 'c']);
    expect(ids(index.search([6.05, 53.05, 6.06, 53.06]))).to.deep.equal(['b']);
    expect(index.search([0, 0, 1, 1])).to.deep.equal([]);
    expect(index.size).to.equal(3);
  });

  it('when a zone is upserted with a new geometry, then it is found only where it now is', () => {
    const index = new ZoneIndex([zone('a', 4, 52)]);
    index.upsert(zone('a', 8, 50));
    expect(index.search([4.05, 52.05, 4.06, 52.06])).to.deep.equal([]);
    expect(ids(index.search([8.05, 50.05, 8.06, 50.06]))).to.deep.equal(['a']);
    expect(index.size).to.equal(1);
  });

  it('when a zone is removed, then it is no longer found; removing an unknown id changes nothing', () => {
    const index = new ZoneIndex([zone('a', 4, 52), zone('b', 4, 52)]);
    index.remove('a');
    index.remove('missing');
    expect(ids(index.search([4.05, 52.05, 4.06, 52.06]))).to.deep.equal(['b']);
    expect(index.size).to.equal(1);
  });

  it('when it is built with a repeated id, then the last zone of that id is the one kept', () => {
    const index = new ZoneIndex([zone('b', 4, 52), zone('b', 5, 52)]);
    expect(ids(index.search([5.05, 52.05, 5.06, 52.06]))).to.deep.equal(['b']);
    expect(index.search([4.05, 52.05, 4.06, 52.06])).to.deep.equal([]);
    expect(index.size).to.equal(1);
  });

  it('when keepOnly is called, then the zones it does not name are gone and the others are still found', () => {
    const index = new ZoneIndex([zone('a', 4, 52), zone('b', 4, 52), zone('c', 5, 52)]);
    index.keepOnly(new Set(['b', 'unknown']));
    expect(ids(index.search([4.05, 52.05, 4.06, 52.06]))).to.deep.equal(['b']);
    expect(index.search([5.05, 52.05, 5.06, 52.06])).to.deep.equal([]);
    expect(index.size).to.equal(1);
  });

  it('when a zone geometry has no computable bounds, then it is a candidate everywhere rather than lost', () => {
    const broken = { ...zone('x', 4, 52), geometry: { type: 'Polygon', coordinates: [] } } as GeoZone;
    expect(ids(new ZoneIndex([broken]).search([100, 10, 101, 11]))).to.deep.equal(['x']);
  });

  it('when a published zone of two volumes is searched, then it reads back equal, the one-volume zone sharing its area', () => {
    const single = zone('a', 4, 52);
    const lower = polygon(rectangle(4, 52, 4.05, 52.05));
    const upper = polygon(rectangle(4.02, 52.02, 4.1, 52.1));
    const layered: GeoZone = {
      ...zone('b', 4, 52),
      geometry: { type: 'MultiPolygon', coordinates: [lower.coordinates, upper.coordinates] },
      volumes: [
        { geometry: lower, lower: { value: 0, reference: 'AGL', uom: 'm' }, upper: { value: 120, reference: 'AGL', uom: 'm' } },
        { geometry: upper, lower: { value: 300, reference: 'AMSL', uom: 'ft' }, upper: { value: 1000, reference: 'AMSL', uom: 'ft' } },
      ],
    };
    const [a, b] = new ZoneIndex([single, layered]).search([4.03, 52.03, 4.04, 52.04]);
    expect(a).to.deep.equal(single);
    expect(a!.volumes[0]!.geometry).to.equal(a!.geometry);
    expect(b).to.deep.equal(layered);
  });

  it('when a zone is kept, then changing the zone given to it later changes nothing found', () => {
    const given = zone('a', 4, 52);
    const index = new ZoneIndex([given]);
    given.geometry.coordinates[0]![0]![0] = 99;
    expect(index.search([4.05, 52.05, 4.06, 52.06])[0]!.geometry).to.deep.equal(zone('a', 4, 52).geometry);
  });

  it('when it holds 5,000 zones, then it loads them all and answers correctly', () => {
    const zones: GeoZone[] = [];
    for (let i = 0; i < 5_000; i += 1)
      zones.push(zone(`z${String(i).padStart(4, '0')}`, 3 + (i % 100) * 0.05, 50 + Math.floor(i / 100) * 0.05, 0.04));
    const index = new ZoneIndex(zones);
    for (let i = 0; i < 1_000; i += 1) index.search([4, 51, 4.01, 51.01]);
    expect(index.size).to.equal(5_000);
    // Zone 2020 spans [4, 51] to [4.04, 51.04] (west 3 + 20 × 0.05, south 50 + 20 × 0.05); the 0.01° gaps keep the others away.
    expect(ids(index.search([4.001, 51.001, 4.002, 51.002]))).to.deep.equal(['z2020']);
  });
});
