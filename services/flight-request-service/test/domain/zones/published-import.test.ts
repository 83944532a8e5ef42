import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseZoneImport } from '../../../src/domain/zones/parse-zone-import.js';

/** What an ED-269 or ED-318 document may not say: each refusal names its path and the zone's identifier. */

const SAMPLES = new URL('../../support/airspace/', import.meta.url);
const sample = (file: string): Record<string, any> => JSON.parse(readFileSync(new URL(file, SAMPLES), 'utf8'));

function errorsOf(document: unknown): Record<string, string[]> {
  const parsed = parseZoneImport(document);
  expect(parsed.ok).to.equal(false);
  expect(parsed.entries).to.deep.equal([]);
  return parsed.errors;
}

describe('parseZoneImport of published documents', () => {
  it('when documents are recognised by shape, then UASZoneList is ED-269, metadata or layers ED-318, anything else the own format', () => {
    expect(parseZoneImport(sample('sample-ed269.json')).format).to.equal('ED-269');
    expect(parseZoneImport(sample('sample-ed318.json')).format).to.equal('ED-318');
    const { metadata: _metadata, ...withoutMetadata } = sample('sample-ed318.json');
    expect(parseZoneImport(withoutMetadata).format).to.equal('ED-318');
    expect(parseZoneImport({ type: 'FeatureCollection', features: [] }).format).to.equal('own');
  });

  it('when an ED-318 layer has an unknown unit or reference, then the schema refuses each, naming the zone', () => {
    const document = sample('sample-ed318.json');
    document['features'][0].geometry.layer.uom = 'km';
    document['features'][1].geometry.layer.lowerReference = 'QFE';
    const errors = errorsOf(document);
    expect(errors['features.0.geometry.layer.uom']?.[0]).to.equal('The features.0.geometry.layer.uom field (zone LSZB003) must be one of: m, ft.');
    expect(errors['features.1.geometry.layer.lowerReference']?.[0]).to.contain('(zone BLns058) must be one of: AGL, AMSL, WGS84');
  });

  it('when a schedule ends before it starts or a time does not parse, then each is refused; nothing reads as always', () => {
    const document = sample('sample-ed318.json');
    document['features'][0].properties.limitedApplicability = [
      { startDateTime: '2026-06-01T00:00:00+02:00', endDateTime: '2026-05-01T00:00:00+02:00' },
      { schedule: [{ day: ['MON'], startTime: '25:00:00+01:00', endTime: '17:00:00+01:00' }] },
      { schedule: [{ day: ['TUE'], startTime: '08:00:00', endEvent: 'SS' }] },
      { startDateTime: '2026-02-30T00:00:00+01:00' },
    ];
    const errors = errorsOf(document);
    const base = 'features.0.properties.limitedApplicability';
    expect(errors[`${base}.0.endDateTime`]?.[0]).to.equal(`The ${base}.0.endDateTime field (zone LSZB003) must be after its startDateTime.`);
    expect(Object.keys(errors).some((path) => path.startsWith(`${base}.1.schedule.0.startTime`))).to.equal(true);
    expect(errors[`${base}.2.schedule.0.startTime`]?.[0]).to.contain('(zone LSZB003)');
    expect(errors[`${base}.3.startDateTime`]?.[0]).to.match(/\(zone LSZB003\) must (be a valid date-time|match format "date-time")/);
  });

  it('when an ED-269 zone has an unknown restriction, unit, reference or member, an open ring or an overlong text, then each is named', () => {
    const document = sample('sample-ed269.json');
    const zone = document['UASZoneList'][0];
    zone.restriction = 'FORBIDDEN';
    zone.colour = 'red';
    zone.message = 'x'.repeat(201);
    zone.geometry[0].uomDimensions = 'KM';
    zone.geometry[0].upperVerticalReference = 'STD';
    zone.geometry[0].horizontalProjection.coordinates[0].pop();
    const errors = errorsOf(document);
    const at = 'UASZoneList.0';
    expect(errors[`${at}.restriction`]?.[0]).to.contain('(zone LSXX) must be one of: USPACE, PROHIBITED, REQ_AUTHORISATION');
    expect(errors[`${at}.colour`]?.[0]).to.contain('is not an ED-269 zone member');
    expect(errors[`${at}.message`]?.[0]).to.contain('must not be longer than 200 characters');
    expect(errors[`${at}.geometry.0.uomDimensions`]?.[0]).to.contain('must be one of: M, FT');
    expect(errors[`${at}.geometry.0.upperVerticalReference`]?.[0]).to.contain('must be one of: AGL, AMSL, WGS84');
    expect(Object.keys(errors).some((path) => path.startsWith(`${at}.geometry.0.horizontalProjection.coordinates`))).to.equal(true);
  });

  it('when an ED-269 applicability is neither permanent nor dated, or one zone identifier repeats, then both are refused', () => {
    const document = sample('sample-ed269.json');
    const zone = document['UASZoneList'][0];
    zone.applicability = [{ permanent: 'NO', startDateTime: null, endDateTime: null, dailyPeriod: [] }];
    document['UASZoneList'].push(JSON.parse(JSON.stringify({ ...zone, applicability: [{ permanent: 'YES' }] })));
    const errors = errorsOf(document);
    expect(errors['UASZoneList.0.applicability.0']?.[0]).to.contain('says neither permanent nor when');
    expect(errors['UASZoneList.1.identifier']).to.equal(undefined);
    const twice = sample('sample-ed269.json');
    twice['UASZoneList'].push(twice['UASZoneList'][0]);
    expect(errorsOf(twice)['UASZoneList.1.identifier']?.[0]).to.contain('repeats the country and identifier at UASZoneList.0.identifier');
  });

  it('when an ED-269 volume in feet is a circle, then its radius is read in feet too (uomDimensions covers every dimension)', () => {
    const document = sample('sample-ed269.json');
    const volume = document['UASZoneList'][0].geometry[0];
    volume.uomDimensions = 'FT';
    volume.lowerLimit = 0;
    volume.upperLimit = 400;
    volume.horizontalProjection = { type: 'Circle', center: [6.17, 46.21], radius: 1000 };
    const parsed = parseZoneImport(document);
    expect(parsed.ok).to.equal(true);
    const zone = parsed.entries[0]?.ok ? parsed.entries[0].zone : null;
    const ring = zone?.geometry.type === 'Polygon' ? (zone.geometry.coordinates[0] ?? []) : [];
    const farthest = Math.max(...ring.map(([lon, lat]) => haversineM([6.17, 46.21], [lon as number, lat as number])));
    // 1,000 ft is 304.8 m; the polygon drawn around the circle reaches a little beyond it, never to 1,000 m.
    expect(farthest).to.be.within(304.8, 320);
  });

  it('when an ED-269 volume is a circle, then it becomes a polygon around the circle, never inside it', () => {
    const document = sample('sample-ed269.json');
    document['UASZoneList'][0].geometry[0].horizontalProjection = { type: 'Circle', center: [6.17, 46.21], radius: 1000 };
    const parsed = parseZoneImport(document);
    expect(parsed.ok).to.equal(true);
    const zone = parsed.entries[0]?.ok ? parsed.entries[0].zone : null;
    const ring = zone?.geometry.type === 'Polygon' ? (zone.geometry.coordinates[0] ?? []) : [];
    // Each edge's midpoint (the polygon's nearest point to the centre) is at least the radius away.
    const midpoints = ring
      .slice(1)
      .map((end, i) => [((ring[i]?.[0] as number) + (end[0] as number)) / 2, ((ring[i]?.[1] as number) + (end[1] as number)) / 2]);
    expect(Math.min(...midpoints.map(([lon, lat]) => haversineM([6.17, 46.21], [lon as number, lat as number])))).to.be.at.least(999.9);
  });
});

function haversineM([lon1, lat1]: [number, number], [lon2, lat2]: [number, number]): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(a));
}
