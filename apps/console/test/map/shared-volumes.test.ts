import { expect } from 'chai';
import { sharedVolumeLayers, sharedVolumeText } from '../../src/map/shared-volumes';

const shared = {
  start_time: '2026-12-03T10:00:00+00:00',
  end_time: '2026-12-03T11:00:00+00:00',
  lower_altitude_m: 0,
  upper_altitude_m: 60,
  bbox: [5.1, 52.1, 5.11, 52.11],
};

describe('the console map: shared volumes as layers (pure)', () => {
  it("when a reviewer's request competes with another pending one, then the shared box is a layer saying its window and band, naming no one", () => {
    expect(sharedVolumeText(shared)).to.equal('3 Dec 2026, 10:00 UTC – 3 Dec 2026, 11:00 UTC, 0–60 m AGL');
    expect(sharedVolumeLayers([shared], 'competing')).to.deep.equal([
      {
        id: 'competing-0',
        kind: 'competing',
        data: {
          type: 'Polygon',
          coordinates: [
            [
              [5.1, 52.1],
              [5.11, 52.1],
              [5.11, 52.11],
              [5.1, 52.11],
              [5.1, 52.1],
            ],
          ],
        },
        label: "Shared with another operator's pending request: 3 Dec 2026, 10:00 UTC – 3 Dec 2026, 11:00 UTC, 0–60 m AGL",
      },
    ]);
  });

  it('when the shared band is not above ground, then its reference says so', () => {
    expect(sharedVolumeText({ ...shared, lower_altitude_m: 40, upper_altitude_m: 95, altitude_reference: 'AMSL' })).to.match(/, 40–95 m AMSL$/);
  });

  it('when screening found an approved flight in the way, then the layer says so', () => {
    expect(sharedVolumeLayers([shared, shared], 'finding').map((layer) => [layer.id, layer.label.split(':')[0]])).to.deep.equal([
      ['finding-0', 'Shared with another approved flight'],
      ['finding-1', 'Shared with another approved flight'],
    ]);
  });
});
