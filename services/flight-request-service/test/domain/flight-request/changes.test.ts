import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ConflictError } from '@dfc/kit/errors';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';
import { cancel, decide, expire, rescreen, submit } from '../../../src/domain/flight-request/changes.js';
import type { FlightRequest } from '../../../src/domain/flight-request/flight-request.js';
import type { ReviewItemsChanged } from '../../../src/domain/events/review-item-events.js';
import type { ReviewItem } from '../../../src/domain/review/review-group.js';
import type { Finding, ScreeningResult } from '../../../src/domain/screening/screen.js';
import type { ValidSubmission } from '../../../src/domain/submission/check-submission.js';
import type { GeoZone } from '../../../src/domain/zones/geo-zone.js';
import { InternalRoutingKeys } from '../../../src/messaging.js';
import { square } from '../../support/fixtures.js';

const submittedAt = new Date('2026-12-01T08:00:00Z');
const later = new Date('2026-12-01T08:30:00Z');
const polygon = { type: 'Feature' as const, properties: {}, geometry: { type: 'Polygon' as const, coordinates: square(4.89, 52.37, 0.01) } };

function pendingItem(authority: string): ReviewItem {
  return {
    id: randomUUID(),
    kind: 'zone_authorisation',
    authority,
    zone_id: null,
    finding_codes: [],
    message: 'needs a look',
    status: 'pending',
    reason: null,
    decided_at: null,
    decided_by: null,
  };
}

function request(overrides: Partial<FlightRequest> = {}): FlightRequest {
  return {
    _id: randomUUID(),
    operator_uuid: randomUUID(),
    status: 'Pending',
    operator_name: 'Jan de Vries',
    operator_email: 'jan@example.com',
    operator_phone: '+31 20 123 4567',
    operator_company: null,
    operational_authorisation_number: null,
    start_time: new Date('2026-12-01T10:00:00Z'),
    end_time: new Date('2026-12-01T11:00:00Z'),
    max_altitude: 100,
    aircraft_type: 'multirotor',
    purpose: 'Roof inspection',
    area: { bbox: [4.89, 52.37, 4.9, 52.38], centroid: [4.895, 52.375], area_m2: 760_000, feature_count: 1 },
    geometry: { flight_area: { type: 'FeatureCollection', features: [polygon] }, polygons: [polygon] },
    review: { findings: [], items: [pendingItem('LVNL'), pendingItem('MIL')], complete: false },
    review_authorities: ['LVNL', 'MIL'],
    cancellation: null,
    status_history: [{ status: 'Pending', at: submittedAt, actor: 'operator', reason: null }],
    idempotency: null,
    version: 3,
    created_at: submittedAt,
    updated_at: submittedAt,
    ...overrides,
  };
}

const itemsChanged = (events: EventEnvelope[] | undefined) =>
  (events ?? []).filter((event) => event.type === InternalRoutingKeys.reviewItemsChanged).map((event) => event.data as ReviewItemsChanged);

describe('FlightRequest changes (pure: the fields to set and the events)', () => {
  it('submit: when screening leaves the request Pending with items, then it is version-0 Pending with its geometry and three events', () => {
    const { geometry, ...fields } = request();
    const submission: ValidSubmission = { ...fields, area: { stored: geometry.flight_area, polygons: geometry.polygons, summary: fields.area } };
    const screening: ScreeningResult = {
      outcome: 'Pending',
      findings: [],
      items: [{ kind: 'altitude', authority: 'NATIONAL', zone_id: null, finding_codes: [], message: 'high' }],
    };
    const { request: created, events } = submit(submission, screening, {
      uuid: 'u-1',
      actor: 'operator',
      idempotency: null,
      at: submittedAt,
      newItemId: () => 'item-1',
    });
    expect(created).to.deep.include({ _id: 'u-1', status: 'Pending', geometry, review_authorities: ['NATIONAL'] });
    expect(events.map((event) => event.type)).to.deep.equal([
      RoutingKeys.flightRequestSubmitted,
      RoutingKeys.flightRequestStatusChanged,
      InternalRoutingKeys.reviewItemsChanged,
    ]);
    expect(itemsChanged(events)[0]?.version).to.equal(0);
  });

  it('cancel: when a Pending request is cancelled, then its pending items are withdrawn and the items event names the version the write produces', () => {
    const current = request();
    const change = cancel(current, 'Weather', { actor: 'operator', at: later });
    expect(change.set).to.deep.include({ status: 'Cancelled', cancellation: { reason: 'Weather', cancelled_at: later }, updated_at: later });
    expect(change.set.review?.items.map((item) => item.status)).to.deep.equal(['withdrawn', 'withdrawn']);
    expect(itemsChanged(change.events)[0]?.version).to.equal(current.version + 1);
  });

  it('cancel: when the flight window has ended, then 409 and no change', () => {
    expect(() => cancel(request(), 'late', { actor: 'operator', at: new Date('2026-12-01T12:00:00Z') })).to.throw(ConflictError);
  });

  it('expire: when the request is no longer Pending, then there is nothing to change', () => {
    expect(expire(request({ status: 'Approved' }), later)).to.equal(null);
    expect(expire(request(), later)?.set.status).to.equal('Expired');
  });

  it('decide: when the last pending item is approved, then the request is Approved and the group complete', () => {
    const current = request({ review: { findings: [], items: [pendingItem('LVNL')], complete: false }, review_authorities: ['LVNL'] });
    const itemId = current.review.items[0]!.id;
    const { change, settles } = decide(current, itemId, { decision: 'approve', reason: 'fine', actor: 'reviewer:LVNL', at: later });
    expect(settles).to.equal('Approved');
    expect(change.set).to.deep.include({ status: 'Approved' });
    expect(change.set.review?.complete).to.equal(true);
    expect(change.events?.map((event) => event.type)).to.deep.equal([
      RoutingKeys.flightRequestReviewCompleted,
      RoutingKeys.flightRequestStatusChanged,
      InternalRoutingKeys.reviewItemsChanged,
    ]);
  });

  it('rescreen: when the zone version was screened already, then nothing changes; else a prohibited zone rescinds an approval', () => {
    const zone = { id: 'zone-1', name: 'Wildfire' } as GeoZone;
    const finding: Finding = {
      code: 'ZONE_PROHIBITED',
      message: 'Prohibited zone Wildfire.',
      zone_id: 'zone-1',
      zone_name: 'Wildfire',
      authority: 'POLICE',
    };
    const screening = { zone_id: 'zone-1', version: 2 };
    const context = { at: later, newItemId: randomUUID };
    const outcome = { effect: 'rescind' as const, finding, findings: [finding] };
    expect(rescreen(request({ status: 'Approved', zone_screenings: [screening] }), outcome, { zone, version: 2 }, screening, context)).to.equal(null);
    const change = rescreen(request({ status: 'Approved' }), outcome, { zone, version: 2 }, screening, context);
    expect(change?.set).to.deep.include({ status: 'Rescinded', zone_screenings: [screening] });
    expect(change?.events?.map((event) => event.type)).to.deep.equal([
      RoutingKeys.flightRequestStatusChanged,
      InternalRoutingKeys.reviewItemsChanged,
      RoutingKeys.flightRequestRestrictionNotice,
    ]);
    expect(change?.events?.at(-1)?.data).to.deep.include({ effect: 'rescinded', sequence: 2, volume: 0 });
    expect(change?.set.rescission).to.deep.equal({
      zone_id: 'zone-1',
      zone_name: 'Wildfire',
      reason: 'Prohibited zone Wildfire.',
      rescinded_at: later,
    });
  });

  describe('suspension by a new authorisation zone', () => {
    const zone = {
      id: 'zone-h',
      name: 'Harbour',
      type: 'OTHER',
      restriction: 'REQ_AUTHORISATION',
      authority: 'HARBOUR',
      identifier: null,
      country: null,
      published: null,
    } as GeoZone;
    const finding: Finding = {
      code: 'ZONE_REQUIRES_AUTHORISATION',
      message: 'Needs HARBOUR.',
      zone_id: 'zone-h',
      zone_name: 'Harbour',
      authority: 'HARBOUR',
    };
    const draft = {
      kind: 'zone_authorisation' as const,
      authority: 'HARBOUR',
      zone_id: 'zone-h',
      finding_codes: ['ZONE_REQUIRES_AUTHORISATION' as const],
      message: 'Needs HARBOUR.',
    };
    const approvedItem: ReviewItem = { ...pendingItem('LVNL'), status: 'approved', decided_at: submittedAt, decided_by: 'reviewer:LVNL' };
    const approved = () =>
      request({
        status: 'Approved',
        review: { findings: [], items: [approvedItem], complete: true },
        review_authorities: ['LVNL'],
        deconfliction: { claim: 'c-1', state: 'held', at: submittedAt, cells: ['u173:1'] },
        status_history: [
          { status: 'Pending', at: submittedAt, actor: 'operator', reason: null },
          { status: 'Approved', at: submittedAt, actor: 'reviewer:LVNL', reason: 'ok' },
        ],
      });
    const context = { at: later, newItemId: randomUUID };
    const suspendedFrom = (current: FlightRequest): FlightRequest => {
      const change = rescreen(
        current,
        { effect: 'suspend', findings: [finding], items: [draft] },
        { zone, version: 0 },
        { zone_id: 'zone-h', version: 0 },
        context,
      );
      return { ...current, ...change!.set, version: current.version + 1 };
    };

    it('when a new authorisation zone meets an Approved request, then it is Suspended with the item pending, the claim still held, a status change and a notice', () => {
      const current = approved();
      const change = rescreen(
        current,
        { effect: 'suspend', findings: [finding], items: [draft] },
        { zone, version: 0 },
        { zone_id: 'zone-h', version: 0 },
        context,
      );
      expect(change?.set).to.deep.include({ status: 'Suspended', suspension: { zone_ids: ['zone-h'], suspended_at: later } });
      expect(change?.set.deconfliction).to.equal(undefined);
      expect(change?.set.review?.items.at(-1)).to.include({ authority: 'HARBOUR', zone_id: 'zone-h', status: 'pending' });
      expect(change?.events?.map((event) => event.type)).to.deep.equal([
        RoutingKeys.flightRequestStatusChanged,
        InternalRoutingKeys.reviewItemsChanged,
        RoutingKeys.flightRequestRestrictionNotice,
      ]);
      expect(change?.events?.at(-1)?.data).to.deep.include({ status: 'Suspended', effect: 'suspended', sequence: 3 });
    });

    it('when the authority approves its item, then the request is Approved again and the suspension ends', () => {
      const suspended = suspendedFrom(approved());
      const item = suspended.review.items.find((candidate) => candidate.zone_id === 'zone-h')!;
      const { change, settles } = decide(suspended, item.id, { decision: 'approve', reason: 'fine', actor: 'reviewer:HARBOUR', at: later });
      expect(settles).to.equal('Approved');
      expect(change.set).to.deep.include({ status: 'Approved', suspension: null });
      expect(change.set.status_history?.map((entry) => entry.status)).to.deep.equal(['Pending', 'Approved', 'Suspended', 'Approved']);
    });

    it('when the authority rejects its item, then the request is Rejected and its airspace freed', () => {
      const suspended = suspendedFrom(approved());
      const item = suspended.review.items.find((candidate) => candidate.zone_id === 'zone-h')!;
      const { change } = decide(suspended, item.id, { decision: 'reject', reason: 'no', actor: 'reviewer:HARBOUR', at: later });
      expect(change.set).to.deep.include({ status: 'Rejected', suspension: null, deconfliction: null });
    });

    it('when the zone is lifted, then its item is withdrawn and the request reinstated; a second zone still suspending keeps it Suspended', () => {
      const suspended = suspendedFrom(approved());
      const lifted = rescreen(suspended, { effect: 'lift', findings: [] }, { zone, version: 1 }, { zone_id: 'zone-h', version: 1 }, context);
      expect(lifted?.set).to.deep.include({ status: 'Approved', suspension: null });
      expect(lifted?.set.review?.items.find((item) => item.zone_id === 'zone-h')).to.include({ status: 'withdrawn' });
      expect(lifted?.set.status_history?.at(-1)).to.include({ status: 'Approved', actor: 'screening' });

      const second = { ...zone, id: 'zone-k', authority: 'KEEP' };
      const twice = rescreen(
        suspended,
        { effect: 'suspend', findings: [], items: [{ ...draft, authority: 'KEEP', zone_id: 'zone-k' }] },
        { zone: second, version: 0 },
        { zone_id: 'zone-k', version: 0 },
        context,
      );
      const both: FlightRequest = { ...suspended, ...twice!.set };
      expect(both.suspension?.zone_ids).to.deep.equal(['zone-h', 'zone-k']);
      expect(twice?.set.status_history).to.have.length(3);
      const one = rescreen(both, { effect: 'lift', findings: [] }, { zone, version: 1 }, { zone_id: 'zone-h', version: 1 }, context);
      expect(one?.set.status).to.equal(undefined);
      expect(one?.set.suspension?.zone_ids).to.deep.equal(['zone-k']);
    });
  });
});
