import { expect } from 'chai';
import {
  altitudeText,
  draftLayers,
  isSpecShaped,
  polygonText,
  volumeDrafts,
  volumeInput,
  volumeLayers,
  volumeText,
  type VolumeDraft,
} from '../../src/map/volumes';

const volume = (lower: number, upper: number, features: number[]) => ({
  start_time: '2026-12-03T10:00:00Z',
  end_time: '2026-12-03T10:30:00Z',
  altitude_lower: { value: lower, reference: 'AGL' as const, units: 'm' as const },
  altitude_upper: { value: upper, reference: 'AGL' as const, units: 'm' as const },
  bbox: [5, 52, 5.01, 52.01],
  features,
});
const feature = (lon: number) => ({
  type: 'Feature' as const,
  properties: {},
  geometry: {
    type: 'Polygon' as const,
    coordinates: [
      [
        [lon, 52],
        [lon + 0.01, 52],
        [lon + 0.01, 52.01],
        [lon, 52],
      ],
    ],
  },
});

describe('the console map: 4-D volumes (pure)', () => {
  it('when a volume is shown, then its band reads as F3548 writes it, with its window', () => {
    expect(altitudeText({ value: 1500, reference: 'AMSL', units: 'ft' })).to.equal('1,500 ft AMSL');
    expect(volumeText(volume(60, 100, [0]))).to.equal('60 m AGL – 100 m AGL, 3 Dec 2026, 10:00 UTC – 3 Dec 2026, 10:30 UTC');
  });

  it('when a request has several volumes, then each is a layer of its own features of flight_area, labelled with its band and window', () => {
    const record = {
      uuid: 'r',
      start_time: '2026-12-03T10:00:00Z',
      end_time: '2026-12-03T10:30:00Z',
      max_altitude: 100,
      volumes: [volume(0, 60, [0]), volume(60, 100, [1, 2])],
      flight_area: { type: 'FeatureCollection' as const, features: [feature(5), feature(5.1), feature(5.2)] },
    };
    const layers = volumeLayers(record);
    expect(layers.map((layer) => [layer.id, layer.kind, (layer.data as unknown as { features: unknown[] }).features.length])).to.deep.equal([
      ['r-volume-0', 'volume', 1],
      ['r-volume-1', 'volume', 2],
    ]);
    expect(layers[1]?.label).to.match(/^Volume 2: 60 m AGL – 100 m AGL, /);
    const spec = { ...record, volumes: [volume(0, 100, [0, 1, 2])] } as Parameters<typeof volumeLayers>[0];
    expect(volumeLayers(spec), "the spec's one volume: the area layer draws it").to.deep.equal([]);
    const banded = { ...record, volumes: [volume(30, 100, [0])] } as Parameters<typeof volumeLayers>[0];
    expect(
      volumeLayers(banded).map((layer) => layer.label),
      'one volume with a band of its own',
    ).to.deep.equal(['Volume 1: 30 m AGL – 100 m AGL, 3 Dec 2026, 10:00 UTC – 3 Dec 2026, 10:30 UTC']);
  });

  it("when a request is one volume from the ground to max_altitude m AGL over its window, then it is the spec's fields; anything else is volumes", () => {
    const record = { start_time: '2026-12-03T10:00:00Z', end_time: '2026-12-03T10:30:00Z', max_altitude: 100, volumes: [volume(0, 100, [0])] };
    expect(isSpecShaped(record)).to.equal(true);
    expect(isSpecShaped({ ...record, start_time: '2026-12-03T10:00:00.000+00:00' }), 'the same instant, written otherwise').to.equal(true);
    expect(isSpecShaped({ ...record, volumes: [volume(10, 100, [0])] }), 'off the ground').to.equal(false);
    expect(isSpecShaped({ ...record, max_altitude: 120 }), 'another ceiling').to.equal(false);
    expect(isSpecShaped({ ...record, end_time: '2026-12-03T11:00:00Z' }), 'a window of its own').to.equal(false);
    expect(isSpecShaped({ ...record, volumes: [volume(0, 60, [0]), volume(0, 100, [0])] }), 'two volumes').to.equal(false);
    const feet = { ...volume(0, 100, [0]), altitude_upper: { value: 100, reference: 'AGL' as const, units: 'ft' as const } };
    expect(isSpecShaped({ ...record, volumes: [feet] }), 'in feet').to.equal(false);
  });

  it("when a request of volumes is amended, then each volume is a draft of its own area, band, window and a circle's radius", () => {
    const circle = { type: 'Feature' as const, properties: { radius_m: 250 }, geometry: { type: 'Point' as const, coordinates: [5.3, 52] } };
    const record = {
      volumes: [
        volume(0, 60, [0]),
        { ...volume(60, 400, [1]), altitude_upper: { value: 400, reference: 'AMSL' as const, units: 'ft' as const } },
        volume(0, 30, [2, 3]),
      ],
      flight_area: { type: 'FeatureCollection' as const, features: [feature(5), circle, feature(5.1), feature(5.2)] },
    };
    const drafts = volumeDrafts(record);
    expect(drafts[0]).to.deep.equal({
      geometry: JSON.stringify(feature(5).geometry),
      radius_m: '',
      lower: { value: '0', reference: 'AGL', units: 'm' },
      upper: { value: '60', reference: 'AGL', units: 'm' },
      start_time: '2026-12-03T10:00',
      end_time: '2026-12-03T10:30',
    });
    expect(drafts[1]).to.include({ geometry: JSON.stringify(circle.geometry), radius_m: '250' });
    expect(drafts[1]?.upper).to.deep.equal({ value: '400', reference: 'AMSL', units: 'ft' });
    expect(JSON.parse(drafts[2]?.geometry ?? '')).to.deep.equal({
      type: 'MultiPolygon',
      coordinates: [feature(5.1).geometry.coordinates, feature(5.2).geometry.coordinates],
    });
    expect(volumeInput(drafts[1] as VolumeDraft))
      .to.include({ radius_m: 250 })
      .and.have.nested.property('altitude_upper.units', 'ft');
    expect(volumeInput(drafts[0] as VolumeDraft)).not.to.have.property('radius_m');
  });

  it('when corners are clicked, then the volume is a closed Polygon once there are three', () => {
    expect(polygonText([[5, 52]])).to.equal('');
    expect(
      JSON.parse(
        polygonText([
          [5, 52],
          [5.01, 52],
          [5.01, 52.01],
        ]),
      ),
    ).to.deep.equal({
      type: 'Polygon',
      coordinates: [
        [
          [5, 52],
          [5.01, 52],
          [5.01, 52.01],
          [5, 52],
        ],
      ],
    });
  });

  it("when a drafted volume is sent, then it is the submission's volume; what does not parse goes as it is, for the API's 422 to name", () => {
    const draft: VolumeDraft = {
      geometry: polygonText([
        [5, 52],
        [5.01, 52],
        [5.01, 52.01],
      ]),
      radius_m: '',
      lower: { value: '60', reference: 'AGL', units: 'm' },
      upper: { value: '400', reference: 'AMSL', units: 'ft' },
      start_time: '2026-12-03T10:00',
      end_time: '2026-12-03T10:30',
    };
    expect(volumeInput(draft)).to.deep.equal({
      geometry: JSON.parse(draft.geometry),
      altitude_lower: { value: 60, reference: 'AGL', units: 'm' },
      altitude_upper: { value: 400, reference: 'AMSL', units: 'ft' },
      start_time: '2026-12-03T10:00:00Z',
      end_time: '2026-12-03T10:30:00Z',
    });
    expect(volumeInput({ ...draft, geometry: '{not json', upper: { ...draft.upper, value: '' } }))
      .to.include({ geometry: null })
      .and.have.nested.property('altitude_upper.value', null);
    expect(draftLayers([draft, { ...draft, geometry: '' }, draft], 2).map((layer) => [layer.id, layer.kind])).to.deep.equal([
      ['volume-draft-0', 'volume'],
      ['volume-draft-2', 'draft'],
    ]);
  });

  it('when a drafted volume is a Point with a radius, then its layer is a feature carrying radius_m, which the map draws as a circle', () => {
    const point = { type: 'Point', coordinates: [5.1, 52.1] };
    const circle: VolumeDraft = {
      geometry: JSON.stringify(point),
      radius_m: '250',
      lower: { value: '0', reference: 'AGL', units: 'm' },
      upper: { value: '120', reference: 'AGL', units: 'm' },
      start_time: '2026-12-03T10:00',
      end_time: '2026-12-03T10:30',
    };
    expect(draftLayers([circle], null)[0]?.data).to.deep.equal({ type: 'Feature', geometry: point, properties: { radius_m: 250 } });
    expect(draftLayers([{ ...circle, radius_m: ' ' }], null)[0]?.data, 'no radius yet: a point alone').to.deep.equal({
      type: 'Feature',
      geometry: point,
      properties: {},
    });
  });
});
