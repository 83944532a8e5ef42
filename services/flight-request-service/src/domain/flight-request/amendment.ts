import { booleanWithin } from '@turf/boolean-within';
import { ConflictError } from '@dfc/kit/errors';
import { AMENDABLE_FIELDS, type AmendableField } from '@dfc/contracts';
import { amended as amendedEvent, statusChanges } from '../events/flight-request-events.js';
import { reviewItemsChanged } from '../events/review-item-events.js';
import type { AreaPolygon } from '../geometry/flight-area.js';
import { authorisationId, approvalOf } from '../authorisation/claims.js';
import { flightAreaDigest } from '../authorisation/flight-area-digest.js';
import { isComplete, openItems, reviewAuthorities, type ReviewItem } from '../review/review-group.js';
import type { ReviewItemDraft, ScreeningResult } from '../screening/screen.js';
import { transition, type StatusHistoryEntry } from '../state-machine/transitions.js';
import type { ValidSubmission } from '../submission/check-submission.js';
import { toUtcZ } from '../time-format.js';
import type { FlightRequest, FlightRequestChange } from './flight-request.js';

/*
 * An amendment (PATCH): new values for some of a request's amendable fields,
 * checked as a submission is (the request's own fields with the new ones laid
 * over them), screened again, and decided here: which approvals still hold,
 * and whether the request is approved again or goes back to review.
 */

/** The spec's fields that describe the flight's area, window and ceiling: what `volumes` replaces. */
const SPEC_FLIGHT_FIELDS = ['flight_area', 'start_time', 'end_time', 'max_altitude'] as const;

/**
 * The body the submission's own check reads for an amendment: the request as
 * it was submitted, in the form the amendment speaks. Sent `volumes` replace
 * the spec's flight fields the amendment does not send; a request submitted
 * with volumes keeps them unless the amendment sends a `flight_area` instead.
 */
export function amendedBody(current: FlightRequest, amendment: Record<string, unknown>): Record<string, unknown> {
  const base = submissionBodyOf(current);
  const volumes = volumesAsSent(current);
  if (volumes && !Object.hasOwn(amendment, 'flight_area')) {
    for (const field of SPEC_FLIGHT_FIELDS) delete base[field];
    base['volumes'] = volumes;
  }
  if (Object.hasOwn(amendment, 'volumes')) for (const field of SPEC_FLIGHT_FIELDS) if (!Object.hasOwn(amendment, field)) delete base[field];
  return { ...base, ...amendment };
}

/** What the request was submitted as, in the spec's fields. */
function submissionBodyOf(current: FlightRequest): Record<string, unknown> {
  return {
    operator_uuid: current.operator_uuid,
    operator_name: current.operator_name,
    operator_email: current.operator_email,
    operator_phone: current.operator_phone,
    operator_company: current.operator_company,
    operational_authorisation_number: current.operational_authorisation_number,
    start_time: toUtcZ(current.start_time),
    end_time: toUtcZ(current.end_time),
    max_altitude: current.max_altitude,
    aircraft_type: current.aircraft_type,
    purpose: current.purpose,
    flight_area: current.geometry.flight_area,
  };
}

/** The volumes of a request submitted with them, as they were sent: each one's area is the flight area's feature of its index. */
function volumesAsSent(current: FlightRequest): Record<string, unknown>[] | null {
  if (!current.volumes || current.volumes.length === 0) return null;
  return current.volumes.map((volume, index) => {
    const feature = current.geometry.flight_area.features[index];
    const radius: unknown = feature?.properties?.['radius_m'];
    return {
      geometry: feature?.geometry,
      ...(typeof radius === 'number' ? { radius_m: radius } : {}),
      altitude_lower: volume.altitude_lower,
      altitude_upper: volume.altitude_upper,
      start_time: toUtcZ(volume.start_time),
      end_time: toUtcZ(volume.end_time),
    };
  });
}

/** 409 unless the request may still be amended: Pending or Approved, and its window not started. */
export function checkAmendable(current: Pick<FlightRequest, 'status' | 'start_time'>, now: Date): void {
  if (current.status !== 'Pending' && current.status !== 'Approved') {
    throw new ConflictError(`${/^[AEIOU]/.test(current.status) ? 'An' : 'A'} ${current.status} flight request cannot be amended.`);
  }
  if (current.start_time.getTime() <= now.getTime()) throw new ConflictError('A flight request whose flight window has started cannot be amended.');
}

/** The amendable fields whose value the amendment changes (none: the amendment is a repeat, and changes nothing). */
export function changedFields(current: FlightRequest, amended: ValidSubmission): AmendableField[] {
  const differs: Record<AmendableField, boolean> = {
    start_time: current.start_time.getTime() !== amended.start_time.getTime(),
    end_time: current.end_time.getTime() !== amended.end_time.getTime(),
    max_altitude: current.max_altitude !== amended.max_altitude,
    purpose: current.purpose !== amended.purpose,
    flight_area: flightAreaDigest(current.geometry.flight_area) !== flightAreaDigest(amended.area.stored),
    volumes: JSON.stringify(current.volumes ?? null) !== JSON.stringify(amended.volumes ?? null),
  };
  return AMENDABLE_FIELDS.filter((field) => differs[field]);
}

/**
 * Whether the amended flight stays inside what was reviewed: every part of
 * its area within a part of the old one, its window within the old window,
 * its ceiling no higher. Only then does an approval given for the old flight
 * still cover the new one.
 */
export function staysWithin(current: FlightRequest, amended: ValidSubmission): boolean {
  return (
    amended.start_time.getTime() >= current.start_time.getTime() &&
    amended.end_time.getTime() <= current.end_time.getTime() &&
    amended.max_altitude <= current.max_altitude &&
    partsOf(amended.area.polygons).every((part) => partsOf(current.geometry.polygons).some((old) => within(part, old)))
  );
}

/** A library failure counts as outside: the approval is then asked for again rather than assumed. */
function within(part: AreaPolygon, old: AreaPolygon): boolean {
  try {
    return booleanWithin(part, old);
  } catch {
    return false;
  }
}

/** Each polygon of a MultiPolygon on its own, as the containment test takes them. */
function partsOf(polygons: AreaPolygon[]): AreaPolygon[] {
  return polygons.flatMap((polygon) =>
    polygon.geometry.type === 'Polygon'
      ? [polygon]
      : polygon.geometry.coordinates.map((coordinates): AreaPolygon => ({ ...polygon, geometry: { type: 'Polygon', coordinates } })),
  );
}

export interface AmendmentContext {
  actor: string;
  at: Date;
  newItemId: () => string;
  requestId?: string;
}

export interface AmendmentDecision {
  change: FlightRequestChange;
  /** Approved: every item the amended flight needs is approved (or it needs none), so it must reserve its airspace first. */
  target: 'Approved' | 'Pending';
}

const WITHDRAWN_BY_AMENDMENT = 'The amended flight request no longer needs this review.';

/**
 * The amended request: its new fields, the findings of its screening, and a
 * review of the items that screening asks for — an approval that still holds
 * (the same kind of item, authority and zone, approved, and the flight stays
 * within what was approved) is kept, an item still pending stays as it is,
 * anything else is a new pending item. Items no longer needed drop out (a
 * pending one is withdrawn from the queue). A rejecting screening refuses the
 * amendment (409): the request stays as it was.
 */
export function amend(current: FlightRequest, amended: ValidSubmission, screening: ScreeningResult, context: AmendmentContext): AmendmentDecision {
  if (screening.outcome === 'Rejected') {
    const blocking = screening.findings.filter((finding) => finding.code === 'ZONE_PROHIBITED').map((finding) => finding.message);
    throw new ConflictError(`The amendment cannot be made: ${blocking.join(' ') || 'screening rejects the amended flight.'}`);
  }
  const covered = staysWithin(current, amended);
  const { items, dropped } = amendedItems(current.review.items, screening.items, covered, context);
  const target: AmendmentDecision['target'] = items.every((item) => item.status === 'approved') ? 'Approved' : 'Pending';
  const revision = (current.revision ?? 1) + 1;
  const entry = historyEntry(current, target, revision, context);
  const history = entry ? [...current.status_history, entry] : current.status_history;
  const { area, ...fields } = amended;
  const subject = { ...current, start_time: fields.start_time, end_time: fields.end_time, max_altitude: fields.max_altitude, status: target };
  const superseded = current.status === 'Approved' ? approvalOf(current) : null;
  const set: FlightRequestChange['set'] = {
    start_time: fields.start_time,
    end_time: fields.end_time,
    max_altitude: fields.max_altitude,
    purpose: fields.purpose,
    area: area.summary,
    geometry: { flight_area: area.stored, polygons: area.polygons },
    volumes: fields.volumes ?? null,
    status: target,
    status_history: history,
    review: { findings: screening.findings, items, complete: isComplete(items) },
    review_authorities: [...new Set([...current.review_authorities, ...reviewAuthorities(items)])],
    revision,
    // Back to review frees the airspace at once; an approval again holds the airspace reserved for it (set by the caller).
    deconfliction: null,
    updated_at: context.at,
  };
  const events = [
    amendedEvent(
      subject,
      {
        revision,
        previous_status: current.status,
        changed: changedFields(current, amended),
        approvals_kept: items.filter((item) => item.status === 'approved').length,
        revoked_authorisation: superseded ? authorisationId(current._id, superseded.position) : null,
        amended_at: context.at,
        sequence: entry ? history.length : null,
      },
      context.requestId,
    ),
    ...statusChanges(subject, current.status_history, entry ? [entry] : [], context.requestId),
    reviewItemsChanged(current, current.version + 1, [...items, ...dropped], context.requestId),
  ];
  return { change: { set, events }, target };
}

/** Approved again is a new approval (a new authorisation); back to review from Approved is a new Pending entry; Pending stays Pending. */
function historyEntry(
  current: FlightRequest,
  target: 'Approved' | 'Pending',
  revision: number,
  context: AmendmentContext,
): StatusHistoryEntry | null {
  if (target === 'Pending' && current.status === 'Pending') return null;
  const reason =
    target === 'Approved'
      ? `Amended (revision ${revision}): the approvals it needs still hold or are not needed.`
      : `Amended (revision ${revision}): back to review.`;
  return transition(current.status, target, { actor: target === 'Approved' ? 'screening' : context.actor, reason, at: context.at });
}

function amendedItems(
  previous: ReviewItem[],
  drafts: ReviewItemDraft[],
  covered: boolean,
  context: AmendmentContext,
): { items: ReviewItem[]; dropped: ReviewItem[] } {
  const used = new Set<string>();
  const items = drafts.map((draft) => {
    const match = previous.find(
      (item) =>
        !used.has(item.id) &&
        item.kind === draft.kind &&
        item.authority === draft.authority &&
        item.zone_id === draft.zone_id &&
        (item.status === 'pending' || (item.status === 'approved' && covered)),
    );
    if (match) {
      used.add(match.id);
      return match;
    }
    const [opened] = openItems([draft], context.newItemId);
    return opened as ReviewItem;
  });
  const dropped = previous
    .filter((item) => item.status === 'pending' && !used.has(item.id))
    .map((item): ReviewItem => ({ ...item, status: 'withdrawn', reason: WITHDRAWN_BY_AMENDMENT, decided_at: context.at, decided_by: context.actor }));
  return { items, dropped };
}
