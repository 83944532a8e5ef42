import { expect } from 'chai';
import type { GeoZoneRecord } from '@dfc/contracts';
import { activityText, bandsText, contactText, limitText, padded, zoneLabel, zoneLayers, zonesPath, zoneWindow } from '../../src/map/zones';

const square = (lon: number, lat: number, size = 0.1): GeoZoneRecord['geometry'] => ({
  type: 'Polygon',
  coordinates: [
    [
      [lon, lat],
      [lon + size, lat],
      [lon + size, lat + size],
      [lon, lat + size],
      [lon, lat],
    ],
  ],
});

/** A zone as `GET /api/zones` answers it for an ED-318 import: the Schiphol CTR as the AIP publishes it. */
function zone(overrides: Partial<GeoZoneRecord> = {}): GeoZoneRecord {
  return {
    id: 'nl-eham-ctr',
    name: 'Schiphol CTR',
    type: 'CTR',
    restriction: 'REQ_AUTHORISATION',
    lower_limit_m: 0,
    upper_limit_m: 914,
    schedule: null,
    authority: 'LVNL',
    ctr_exemption_ceiling_m: null,
    geometry: square(4.6, 52.2),
    identifier: 'EHAM-CTR',
    country: 'NLD',
    status: 'published',
    version: 1,
    dataset_id: 'ED-318:LVNL',
    message: 'Ask the tower before you fly',
    volumes: [{ lower: { value: 0, reference: 'AGL', uom: 'm' }, upper: { value: 3000, reference: 'AMSL', uom: 'ft' } }],
    applicability: { permanent: true, periods: [] },
    published: null,
    created_at: '2026-12-01T10:00:00+00:00',
    updated_at: '2026-12-01T10:00:00+00:00',
    ...overrides,
  };
}

describe('the console map: zones as layers (pure)', () => {
  it('when a zone has limits in several references and units, then each shows as published: value, unit, reference', () => {
    expect(limitText({ value: 3000, reference: 'AMSL', uom: 'ft' })).to.equal('3,000 ft AMSL');
    expect(limitText({ value: 120.5, reference: 'WGS84', uom: 'm' })).to.equal('120.5 m WGS84');
    expect(bandsText(zone())).to.equal('0 m AGL – 3,000 ft AMSL');
    expect(
      bandsText(
        zone({
          volumes: [
            { lower: { value: 0, reference: 'AGL', uom: 'm' }, upper: { value: 50, reference: 'AGL', uom: 'm' } },
            { lower: { value: 50, reference: 'AGL', uom: 'm' }, upper: { value: 1500, reference: 'AMSL', uom: 'ft' } },
          ],
        }),
      ),
    ).to.equal('0 m AGL – 50 m AGL; 50 m AGL – 1,500 ft AMSL');
  });

  it('when zones are turned into layers, then each is coloured by its restriction and labelled with its name, band and message', () => {
    const layers = zoneLayers([
      zone(),
      zone({ id: 'p', name: 'Prison', restriction: 'PROHIBITED', message: null, geometry: square(5, 52) }),
      zone({ id: 'c', name: 'Park', restriction: 'CONDITIONAL' }),
      zone({ id: 'u', name: 'U-space', restriction: 'USPACE' }),
      zone({ id: 'n', name: 'Open', restriction: 'NO_RESTRICTION' }),
    ]);
    expect(layers.map((layer) => [layer.id, layer.kind])).to.deep.equal([
      ['zone-nl-eham-ctr', 'zone-authorisation'],
      ['zone-p', 'zone-prohibited'],
      ['zone-c', 'zone-conditional'],
      ['zone-u', 'zone-info'],
      ['zone-n', 'zone-info'],
    ]);
    expect(layers[0]?.label).to.equal('Schiphol CTR · REQ_AUTHORISATION · 0 m AGL – 3,000 ft AMSL · Ask the tower before you fly');
    expect(layers[1]?.label).to.equal('Prison · PROHIBITED · 0 m AGL – 3,000 ft AMSL');
    expect(layers[1]?.data).to.deep.equal(square(5, 52));
  });

  it('when a zone raised the review item, then it stands out, says so, and is drawn last (on top of the others)', () => {
    const layers = zoneLayers([zone(), zone({ id: 'other', name: 'Other' })], new Set(['nl-eham-ctr']));
    expect(layers.map((layer) => [layer.id, layer.kind])).to.deep.equal([
      ['zone-other', 'zone-authorisation'],
      ['zone-nl-eham-ctr', 'zone-raised'],
    ]);
    expect(layers[1]?.label).to.match(/^Raised this review: Schiphol CTR/);
  });

  it('when a zone has several volumes with their own areas (ED-269 geometry[]), then each volume is a layer with its own band', () => {
    const layers = zoneLayers([
      zone({
        volumes: [
          { lower: { value: 0, reference: 'AGL', uom: 'm' }, upper: { value: 60, reference: 'AGL', uom: 'm' }, geometry: square(4.6, 52.2, 0.05) },
          { lower: { value: 0, reference: 'AGL', uom: 'm' }, upper: { value: 150, reference: 'AGL', uom: 'm' }, geometry: square(4.65, 52.25, 0.05) },
        ],
      }),
    ]);
    expect(layers.map((layer) => layer.id)).to.deep.equal(['zone-nl-eham-ctr-0', 'zone-nl-eham-ctr-1']);
    expect(layers[1]?.data).to.deep.equal(square(4.65, 52.25, 0.05));
    expect(layers[1]?.label).to.include('0 m AGL – 150 m AGL').and.not.include('60 m');
  });

  it('when a zone applies at times, then the text gives its active intervals in the asked window, or its schedule without one', () => {
    expect(activityText(zone())).to.equal('Permanent');
    const scheduled = zone({ applicability: { permanent: false, periods: [{ start: '2026-12-01T00:00:00+00:00', end: null, daily: [] }] } });
    expect(activityText(scheduled)).to.equal('Active by its schedule');
    expect(activityText({ ...scheduled, active_intervals: [] })).to.equal('Not active in this window');
    const intervals = Array.from({ length: 5 }, (_, day) => ({
      start: `2026-12-0${day + 1}T08:00:00+00:00`,
      end: `2026-12-0${day + 1}T18:00:00+00:00`,
    }));
    expect(activityText({ ...scheduled, active_intervals: intervals })).to.equal(
      'Active 1 Dec 2026, 08:00 UTC – 1 Dec 2026, 18:00 UTC, 2 Dec 2026, 08:00 UTC – 2 Dec 2026, 18:00 UTC, ' +
        '3 Dec 2026, 08:00 UTC – 3 Dec 2026, 18:00 UTC and 2 more time(s)',
    );
  });

  it('when a zone names its published authority, then the contact gives its name and ways to reach it; else the reviewing authority', () => {
    expect(contactText(zone())).to.equal('LVNL');
    const authority = {
      name: 'Luchtverkeersleiding Nederland',
      names: [],
      service: null,
      contact_name: 'Tower desk',
      site_url: 'https://www.lvnl.nl',
      email: 'drones@lvnl.nl',
      phone: null,
      purpose: 'AUTHORIZATION',
      interval_before: null,
    };
    const published = {
      format: 'ED-318' as const,
      published_type: 'REQ_AUTHORIZATION',
      variant: null,
      names: [],
      messages: [],
      reasons: [],
      other_reason_info: [],
      restriction_conditions: null,
      region: null,
      regulation_exemption: null,
      u_space_class: null,
      extended_properties: null,
      data_source: null,
      authorities: [authority],
    };
    expect(contactText(zone({ published }))).to.equal('Luchtverkeersleiding Nederland · Tower desk · drones@lvnl.nl · https://www.lvnl.nl');
  });

  it('when the zones of a box and window are asked for, then the path is what GET /api/zones accepts: five decimals, within range, a full page', () => {
    const path = zonesPath([4.6, 52.2, 4.71234567, 52.3], { from: '2026-12-03T10:00:00.000Z', to: '2026-12-03T11:00:00.000Z' });
    const url = new URL(path, 'http://console.test');
    expect(url.pathname).to.equal('/api/zones');
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      bbox: '4.60000,52.20000,4.71235,52.30000',
      from: '2026-12-03T10:00:00.000Z',
      to: '2026-12-03T11:00:00.000Z',
      per_page: '100',
    });
    // A map zoomed out past the world, or a single point: still a box the API takes (min below max, within ±180, ±90).
    expect(new URL(zonesPath([-250, -95, 250, 95], null), 'http://console.test').searchParams.get('bbox')).to.equal(
      '-180.00000,-90.00000,180.00000,90.00000',
    );
    expect(new URL(zonesPath([5, 52, 5, 52], null), 'http://console.test').searchParams.get('bbox')).to.equal('5.00000,52.00000,5.00010,52.00010');
    expect(new URL(zonesPath([180, 90, 180, 90], null), 'http://console.test').searchParams.get('bbox')).to.equal(
      '179.99990,89.99990,180.00000,90.00000',
    );
    expect(new URL(zonesPath([5, 52, 6, 53], null), 'http://console.test').searchParams.has('from')).to.equal(false);
  });

  it("when the window is asked for, then it is the flight's, cut to the longest the API answers; no window from times that do not make one", () => {
    expect(zoneWindow('2026-12-03T10:00:00Z', '2026-12-03T11:00:00Z')).to.deep.equal({
      from: '2026-12-03T10:00:00.000Z',
      to: '2026-12-03T11:00:00.000Z',
    });
    expect(zoneWindow('2026-12-01T00:00:00+01:00', '2027-03-01T00:00:00+01:00')).to.deep.equal({
      from: '2026-11-30T23:00:00.000Z',
      to: '2026-12-31T23:00:00.000Z',
    });
    expect(zoneWindow('', '2026-12-03T11:00:00Z')).to.equal(null);
    expect(zoneWindow('2026-12-03T11:00:00Z', '2026-12-03T11:00:00Z')).to.equal(null);
  });

  it('when a box is padded, then it grows by about the distance asked on every side, more degrees of longitude at higher latitudes', () => {
    const [west, south, east, north] = padded([5, 52, 5.01, 52.01], 2_000);
    expect(north - 52.01).to.be.closeTo(2_000 / 111_320, 1e-6);
    expect(52 - south).to.be.closeTo(2_000 / 111_320, 1e-6);
    expect(5 - west).to.be.closeTo(2_000 / (111_320 * Math.cos((52.005 * Math.PI) / 180)), 1e-6);
    expect(east - 5.01).to.be.closeTo(5 - west, 1e-9);
  });

  it('when a label is made for a zone without a message, then no empty part is left', () => {
    expect(zoneLabel(zone({ message: null }))).to.equal('Schiphol CTR · REQ_AUTHORISATION · 0 m AGL – 3,000 ft AMSL');
  });
});
