import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ConflictError } from '@dfc/kit/errors';
import { RoutingKeys } from '@dfc/contracts';
import { amend, amendedBody, changedFields, checkAmendable, staysWithin } from '../../../src/domain/flight-request/amendment.js';
import type { FlightRequest } from '../../../src/domain/flight-request/flight-request.js';
import type { ReviewItem } from '../../../src/domain/review/review-group.js';
import type { ReviewItemDraft, ScreeningResult } from '../../../src/domain/screening/screen.js';
import { checkSubmission } from '../../../src/domain/submission/check-submission.js';
import { DEFAULT_FLIGHT_AREA_LIMITS } from '../../../src/domain/geometry/flight-area.js';
import { featureCollection, square } from '../../support/fixtures.js';

const now = new Date('2026-12-01T08:00:00Z');
const limits = { maxAltitudeM: 500, maxDurationHours: 24, maxStartAheadDays: 90, startGraceMinutes: 5, flightArea: DEFAULT_FLIGHT_AREA_LIMITS };
const area = featureCollection(square(4.89, 52.37, 0.02)) as unknown as FlightRequest['geometry']['flight_area'];
const context = { actor: 'operator', at: now, newItemId: randomUUID };

const altitudeDraft: ReviewItemDraft = {
  kind: 'altitude',
  authority: 'NATIONAL',
  zone_id: null,
  finding_codes: ['ALTITUDE_ABOVE_LIMIT'],
  message: 'high',
};

function item(status: ReviewItem['status']): ReviewItem {
  return { id: randomUUID(), ...altitudeDraft, status, reason: null, decided_at: null, decided_by: null };
}

function approvedRequest(items: ReviewItem[] = []): FlightRequest {
  const checked = checkSubmission(
    {
      operator_uuid: randomUUID(),
      operator_name: 'Jan de Vries',
      operator_email: 'jan@example.com',
      operator_phone: '+31 20 123 4567',
      start_time: '2026-12-01T10:00:00Z',
      end_time: '2026-12-01T12:00:00Z',
      max_altitude: 200,
      aircraft_type: 'multirotor',
      purpose: 'Roof inspection',
      flight_area: area,
    },
    limits,
    now,
  );
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const { area: checkedArea, ...fields } = checked.submission;
  return {
    ...fields,
    _id: randomUUID(),
    status: 'Approved',
    area: checkedArea.summary,
    geometry: { flight_area: checkedArea.stored, polygons: checkedArea.polygons },
    review: { findings: [], items, complete: true },
    review_authorities: ['NATIONAL'],
    cancellation: null,
    status_history: [
      { status: 'Pending', at: now, actor: 'operator', reason: null },
      { status: 'Approved', at: now, actor: 'reviewer:NATIONAL', reason: 'fine' },
    ],
    idempotency: null,
    version: 4,
    created_at: now,
    updated_at: now,
  };
}

/** The request with `fields` laid over it, checked as a submission. */
function amended(current: FlightRequest, fields: Record<string, unknown>) {
  const checked = checkSubmission(amendedBody(current, fields), limits, now);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.submission;
}

const screening = (items: ReviewItemDraft[]): ScreeningResult => ({ outcome: items.length > 0 ? 'Pending' : 'Approved', findings: [], items });

describe('amendments (domain)', () => {
  it('when the request is laid over itself, then nothing changed; each amendable field is told apart', () => {
    const current = approvedRequest();
    expect(changedFields(current, amended(current, {}))).to.deep.equal([]);
    expect(changedFields(current, amended(current, { purpose: 'Other', max_altitude: 150 }))).to.deep.equal(['max_altitude', 'purpose']);
    expect(changedFields(current, amended(current, { flight_area: featureCollection(square(4.9, 52.37, 0.01)) }))).to.deep.equal(['flight_area']);
  });

  it('when the amended area lies inside, the window within and the ceiling no higher, then it stays within; any one outside, then not', () => {
    const current = approvedRequest();
    expect(staysWithin(current, amended(current, { flight_area: featureCollection(square(4.895, 52.375, 0.005)), max_altitude: 150 }))).to.equal(
      true,
    );
    expect(staysWithin(current, amended(current, {}))).to.equal(true);
    expect(staysWithin(current, amended(current, { flight_area: featureCollection(square(4.905, 52.375, 0.02)) }))).to.equal(false);
    expect(staysWithin(current, amended(current, { end_time: '2026-12-01T12:00:01Z' }))).to.equal(false);
    expect(staysWithin(current, amended(current, { start_time: '2026-12-01T09:59:59Z' }))).to.equal(false);
    expect(staysWithin(current, amended(current, { max_altitude: 201 }))).to.equal(false);
  });

  it('when an approved item is asked for again and the flight stays within, then it is kept and the request approved again (a new Approved entry)', () => {
    const approval = item('approved');
    const current = approvedRequest([approval]);
    const decision = amend(current, amended(current, { max_altitude: 150 }), screening([altitudeDraft]), context);
    expect(decision.target).to.equal('Approved');
    expect(decision.change.set.review?.items).to.deep.equal([approval]);
    expect(decision.change.set.status_history?.map((entry) => entry.status)).to.deep.equal(['Pending', 'Approved', 'Approved']);
    expect(decision.change.set.revision).to.equal(2);
    const event = decision.change.events?.find((candidate) => candidate.type === RoutingKeys.flightRequestAmended);
    expect(event?.data).to.deep.include({
      revision: 2,
      approvals_kept: 1,
      revoked_authorisation: `${current._id}.1`,
      changed: ['max_altitude'],
      sequence: 3,
    });
  });

  it('when the flight leaves what was approved, then the item is pending again (a new one) and the request goes back to Pending, its airspace freed', () => {
    const current = approvedRequest([item('approved')]);
    const decision = amend(current, amended(current, { end_time: '2026-12-01T13:00:00Z' }), screening([altitudeDraft]), context);
    expect(decision.target).to.equal('Pending');
    const [reopened] = decision.change.set.review?.items ?? [];
    expect(reopened?.status).to.equal('pending');
    expect(reopened?.id).to.not.equal(current.review.items[0]?.id);
    expect(decision.change.set.status_history?.at(-1)).to.include({ status: 'Pending', actor: 'operator' });
    expect(decision.change.set.deconfliction).to.equal(null);
  });

  it('when a pending item is no longer asked for, then it drops out of the request and the queue hears it withdrawn', () => {
    const waiting = item('pending');
    const current = { ...approvedRequest([waiting]), status: 'Pending' as const, status_history: approvedRequest().status_history.slice(0, 1) };
    const decision = amend(current, amended(current, { max_altitude: 100 }), screening([]), context);
    expect(decision.target).to.equal('Approved');
    expect(decision.change.set.review?.items).to.deep.equal([]);
    const queued = decision.change.events?.find((candidate) => candidate.type.endsWith('review_items_changed'));
    expect((queued?.data as { items: Array<{ id: string; status: string }> }).items).to.deep.equal([
      { id: waiting.id, authority: 'NATIONAL', status: 'withdrawn' },
    ]);
  });

  it('when screening rejects the amended flight, then 409 and nothing to write; a started or final request is not amendable', () => {
    const current = approvedRequest();
    const rejected: ScreeningResult = {
      outcome: 'Rejected',
      findings: [{ code: 'ZONE_PROHIBITED', message: 'Zone X prohibits flights.', zone_id: 'x', zone_name: 'X', authority: 'POLICE' }],
      items: [],
    };
    expect(() => amend(current, amended(current, { purpose: 'Other' }), rejected, context)).to.throw(ConflictError, 'Zone X prohibits flights.');
    expect(() => checkAmendable({ status: 'Approved', start_time: now }, now)).to.throw(
      'A flight request whose flight window has started cannot be amended.',
    );
    expect(() => checkAmendable({ status: 'Rescinded', start_time: new Date(now.getTime() + 1) }, now)).to.throw(
      'A Rescinded flight request cannot be amended.',
    );
  });
});
