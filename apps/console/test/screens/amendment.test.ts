import { expect } from 'chai';
import type { FlightRequestRecord } from '@dfc/contracts';
import { amendment, draftOf, flightActions, outcomeText } from '../../src/screens/amendment';

const band = (value: number) => ({ value, reference: 'AGL' as const, units: 'm' as const });
const square = (lon: number) => ({
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
const record = {
  uuid: 'r',
  status: 'Approved',
  start_time: '2026-12-03T10:00:00Z',
  end_time: '2026-12-03T11:00:00Z',
  max_altitude: 100,
  purpose: 'Survey',
  volumes: [
    {
      start_time: '2026-12-03T10:00:00Z',
      end_time: '2026-12-03T11:00:00Z',
      altitude_lower: band(0),
      altitude_upper: band(100),
      bbox: [5, 52, 5.01, 52.01],
      features: [0],
    },
  ],
  flight_area: { type: 'FeatureCollection', features: [square(5)] },
} as FlightRequestRecord;
const twoVolumes = {
  ...record,
  volumes: [
    { ...record.volumes[0]!, end_time: '2026-12-03T10:30:00Z', altitude_upper: band(60) },
    { ...record.volumes[0]!, start_time: '2026-12-03T10:30:00Z', altitude_lower: band(60), features: [1] },
  ],
  flight_area: { type: 'FeatureCollection', features: [square(5), square(5.1)] },
} as FlightRequestRecord;
const at = (iso: string) => Date.parse(iso);

describe('the console: what an operator may do with a flight request now (pure)', () => {
  it('when the window has not started, then a Pending or Approved request may be amended, not activated', () => {
    expect(flightActions(record, at('2026-12-03T09:59:00Z'))).to.deep.equal({ amend: true, activate: false, end: false });
    expect(flightActions({ ...record, status: 'Pending' }, at('2026-12-03T09:00:00Z'))).to.include({ amend: true, activate: false });
    expect(flightActions({ ...record, status: 'Rejected' }, at('2026-12-03T09:00:00Z'))).to.include({ amend: false });
  });

  it('when the window is open, then an Approved request may be activated (not amended), an Activated one ended; after it, neither', () => {
    expect(flightActions(record, at('2026-12-03T10:00:00Z'))).to.deep.equal({ amend: false, activate: true, end: false });
    expect(flightActions({ ...record, status: 'Activated' }, at('2026-12-03T10:30:00Z'))).to.deep.equal({ amend: false, activate: false, end: true });
    expect(flightActions(record, at('2026-12-03T11:00:00Z'))).to.deep.equal({ amend: false, activate: false, end: false });
  });

  it("when an amendment is drafted, then only the changed fields are sent, as submission sends them, a new window or ceiling with the request's area; nothing changed is null", () => {
    const draft = draftOf(record);
    expect(draft).to.deep.equal({
      start_time: '2026-12-03T10:00',
      end_time: '2026-12-03T11:00',
      max_altitude: '100',
      purpose: 'Survey',
      volumes: null,
    });
    expect(amendment(record, draft)).to.equal(null);
    expect(amendment(record, { ...draft, max_altitude: '80', end_time: '2026-12-03T11:30' }), 'with the area as it is').to.deep.equal({
      end_time: '2026-12-03T11:30:00Z',
      max_altitude: 80,
      flight_area: record.flight_area,
    });
    expect(amendment(record, { ...draft, purpose: 'Survey, west' }), 'the purpose alone').to.deep.equal({ purpose: 'Survey, west' });
  });

  it("when a request of volumes is amended, then its volumes are sent whole (the spec's fields are their envelope), the others as they were", () => {
    const draft = draftOf(twoVolumes);
    expect(draft.volumes?.map((volume) => [volume.lower.value, volume.upper.value, volume.start_time, volume.end_time])).to.deep.equal([
      ['0', '60', '2026-12-03T10:00', '2026-12-03T10:30'],
      ['60', '100', '2026-12-03T10:30', '2026-12-03T11:00'],
    ]);
    expect(amendment(twoVolumes, draft)).to.equal(null);
    expect(amendment(twoVolumes, { ...draft, purpose: 'Survey, east field' }), 'the purpose alone').to.deep.equal({ purpose: 'Survey, east field' });
    const lower = draft.volumes?.map((volume, index) => (index === 1 ? { ...volume, upper: { ...volume.upper, value: '90' } } : volume)) ?? [];
    const body = amendment(twoVolumes, { ...draft, volumes: lower });
    expect(Object.keys(body ?? {})).to.deep.equal(['volumes']);
    expect(
      (body?.['volumes'] as Array<{ altitude_upper: { value: number }; start_time: string }>).map((volume) => [
        volume.altitude_upper.value,
        volume.start_time,
      ]),
    ).to.deep.equal([
      [60, '2026-12-03T10:00:00Z'],
      [90, '2026-12-03T10:30:00Z'],
    ]);
  });

  it("when an action is answered, then the page says what the API's answer is: the revision and status, the activation's and end's times", () => {
    expect(outcomeText('amend', { ...record, revision: 2 })).to.equal('Amended (revision 2): Approved, with a new authorisation.');
    expect(outcomeText('amend', { ...record, status: 'Pending', revision: 3 })).to.equal('Amended (revision 3): Pending, under review.');
    const activation = { activated_at: '2026-12-03T10:05:00+00:00', ended_at: '2026-12-03T10:40:00+00:00', end_reason: 'ended_by_operator' as const };
    expect(outcomeText('activate', { ...record, status: 'Activated', activation })).to.match(/^Activated at 3 Dec 2026, 10:05 UTC: /);
    expect(outcomeText('end', { ...record, status: 'Ended', activation })).to.match(/^Ended at 3 Dec 2026, 10:40 UTC: /);
  });
});
