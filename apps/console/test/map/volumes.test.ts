import { expect } from 'chai';
import { altitudeText, draftLayers, polygonText, volumeInput, volumeLayers, volumeText, type VolumeDraft } from '../../src/map/volumes';

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

  it("when a request has several volumes, then each is a layer of its own features of flight_area, labelled with its band and window", () => {
    const record = {
      uuid: 'r',
      volumes: [volume(0, 60, [0]), volume(60, 100, [1, 2])],
      flight_area: { type: 'FeatureCollection' as const, features: [feature(5), feature(5.1), feature(5.2)] },
    };
    const layers = volumeLayers(record as Parameters<typeof volumeLayers>[0]);
    expect(layers.map((layer) => [layer.id, layer.kind, (layer.data as unknown as { features: unknown[] }).features.length])).to.deep.equal([
      ['r-volume-0', 'volume', 1],
      ['r-volume-1', 'volume', 2],
    ]);
    expect(layers[1]?.label).to.match(/^Volume 2: 60 m AGL – 100 m AGL, /);
    expect(volumeLayers({ ...record, volumes: [volume(0, 100, [0, 1, 2])] } as Parameters<typeof volumeLayers>[0]), 'one volume: the area layer draws it').to.deep.equal([]);
  });

  it('when corners are clicked, then the volume is a closed Polygon once there are three', () => {
    expect(polygonText([[5, 52]])).to.equal('');
    expect(JSON.parse(polygonText([[5, 52], [5.01, 52], [5.01, 52.01]]))).to.deep.equal({
      type: 'Polygon',
      coordinates: [[[5, 52], [5.01, 52], [5.01, 52.01], [5, 52]]],
    });
  });

  it("when a drafted volume is sent, then it is the submission's volume; what does not parse goes as it is, for the API's 422 to name", () => {
    const draft: VolumeDraft = {
      geometry: polygonText([[5, 52], [5.01, 52], [5.01, 52.01]]),
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
    expect(volumeInput({ ...draft, geometry: '{not json', upper: { ...draft.upper, value: '' } })).to.include({ geometry: null }).and.have.nested.property('altitude_upper.value', null);
    expect(draftLayers([draft, { ...draft, geometry: '' }, draft], 2).map((layer) => [layer.id, layer.kind])).to.deep.equal([
      ['volume-draft-0', 'volume'],
      ['volume-draft-2', 'draft'],
    ]);
  });
});
