import type { EndReason, EventEnvelope } from '@dfc/contracts';
import { cascadeRejection, reviewCompleted, statusChanges, submitted } from '../events/flight-request-events.js';
import { reviewItemsChanged } from '../events/review-item-events.js';
import type { ZoneRescreening } from '../rescreening/zone-rescreening.js';
import {
  decideItem,
  isComplete,
  openItems,
  reviewAuthorities,
  withdrawPending,
  type DecisionOutcome,
  type ItemDecision,
} from '../review/review-group.js';
import type { Finding, ScreeningResult } from '../screening/screen.js';
import { activation, canTransition, cancellation, ending, initialEntry, transition, type StatusHistoryEntry } from '../state-machine/transitions.js';
import type { ValidSubmission } from '../submission/check-submission.js';
import type { GeoZone } from '../zones/geo-zone.js';
import type { FlightRequest, FlightRequestChange, ZoneScreening } from './flight-request.js';

/*
 * Every change of a flight request, each a pure function of the request as
 * read: the fields to set and the events the change causes. The store writes
 * both in one write, conditional on the version read.
 */

/** Who and what made a change, and the HTTP request (if any) its events name. */
export interface ChangeContext {
  actor: string;
  at: Date;
  requestId?: string;
}

/** The version a change produces: the write is conditional on the version it was decided from, and increments it. */
function versionAfter(current: FlightRequest): number {
  return current.version + 1;
}

export interface NewRequest extends ChangeContext {
  uuid: string;
  idempotency: FlightRequest['idempotency'];
  /** Ids of the review items screening opens. */
  newItemId: () => string;
}

/** A new request: Pending, then screening's decision when it made one; with the events of its submission. */
export function submit(
  submission: ValidSubmission,
  screening: ScreeningResult,
  context: NewRequest,
): { request: Omit<FlightRequest, 'version'>; events: EventEnvelope[] } {
  const history: StatusHistoryEntry[] = [initialEntry({ actor: context.actor, reason: null, at: context.at })];
  if (screening.outcome !== 'Pending') {
    history.push(transition('Pending', screening.outcome, { actor: 'screening', reason: decisionReason(screening), at: context.at }));
  }
  const items = openItems(screening.items, context.newItemId);
  const { area, ...fields } = submission;
  const request: Omit<FlightRequest, 'version'> = {
    ...fields,
    _id: context.uuid,
    status: screening.outcome,
    area: area.summary,
    geometry: { flight_area: area.stored, polygons: area.polygons },
    review: { findings: screening.findings, items, complete: isComplete(items) },
    review_authorities: reviewAuthorities(items),
    cancellation: null,
    status_history: history,
    idempotency: context.idempotency,
    created_at: context.at,
    updated_at: context.at,
  };
  const events = [
    submitted(request, context.requestId),
    ...statusChanges(request, [], history, context.requestId),
    ...(items.length > 0 ? [reviewItemsChanged(request, 0, items, context.requestId)] : []),
  ];
  return { request, events };
}

/** The history's reason for an automatic decision: the findings that decided it. */
function decisionReason(screening: ScreeningResult): string {
  if (screening.outcome === 'Rejected') {
    const blocking = screening.findings.filter((finding) => finding.code === 'ZONE_PROHIBITED').map((finding) => finding.message);
    return blocking.join(' ') || 'Rejected by automatic screening.';
  }
  return 'No review needed: approved by automatic screening.';
}

const WITHDRAWN_BY_CANCELLATION = 'The flight request was cancelled.';

/** DELETE: Pending or Approved, while the window has not ended, becomes Cancelled; pending items are withdrawn. */
export function cancel(current: FlightRequest, reason: string, context: ChangeContext): FlightRequestChange {
  const entry = cancellation(current, { actor: context.actor, reason, at: context.at });
  const closed = close(current, entry, WITHDRAWN_BY_CANCELLATION, context.requestId);
  return { ...closed, set: { ...closed.set, cancellation: { reason, cancelled_at: context.at } } };
}

const EXPIRY_REASON = 'The start time passed before the review was complete.';

/** PRODUCT.md: a Pending request whose start passes undecided becomes Expired; null when it is no longer Pending. */
export function expire(current: FlightRequest, at: Date): FlightRequestChange | null {
  if (!canTransition(current.status, 'Expired')) return null;
  return close(current, transition(current.status, 'Expired', { actor: 'system', reason: EXPIRY_REASON, at }), EXPIRY_REASON);
}

/**
 * POST .../activate: an Approved flight inside its window is Activated. Its
 * reservation stays held: an Activated flight keeps its airspace.
 */
export function activate(current: FlightRequest, context: ChangeContext): FlightRequestChange {
  const entry = activation(current, { actor: context.actor, reason: null, at: context.at });
  return {
    set: {
      status: entry.status,
      status_history: [...current.status_history, entry],
      activation: { activated_at: context.at, ended_at: null, end_reason: null },
      updated_at: context.at,
    },
    events: statusChanges(current, current.status_history, [entry], context.requestId),
  };
}

/** POST .../end: the operator ends an Activated flight; its airspace is given back in the same write. */
export function end(current: FlightRequest, reason: string | null, context: ChangeContext): FlightRequestChange {
  const entry = ending(current, { actor: context.actor, reason, at: context.at });
  return ended(current, entry, 'ended_by_operator', context.requestId);
}

const NOT_ACTIVATED_REASON = 'The flight window closed before the flight was activated.';
const OVERRUN_REASON = 'The flight window closed and its grace period passed without the flight being ended.';

/**
 * The window-close sweep: an Approved flight whose window has closed never
 * flew and ends `not_activated`; an Activated one still flying a grace period
 * after its window ends `window_closed`. Null when neither applies (any more).
 */
export function closeWindow(current: FlightRequest, at: Date, graceMs: number): FlightRequestChange | null {
  const closed = current.end_time.getTime() <= at.getTime();
  if (current.status === 'Approved' && closed) {
    return ended(current, transition('Approved', 'Ended', { actor: 'system', reason: NOT_ACTIVATED_REASON, at }), 'not_activated');
  }
  if (current.status === 'Activated' && current.end_time.getTime() + graceMs <= at.getTime()) {
    return ended(current, transition('Activated', 'Ended', { actor: 'system', reason: OVERRUN_REASON, at }), 'window_closed');
  }
  return null;
}

function ended(current: FlightRequest, entry: StatusHistoryEntry, reason: EndReason, requestId?: string): FlightRequestChange {
  const closed = close(current, entry, 'The flight ended.', requestId);
  const activatedAt = current.activation?.activated_at ?? null;
  return { ...closed, set: { ...closed.set, activation: { activated_at: activatedAt, ended_at: entry.at, end_reason: reason } } };
}

/**
 * A reviewer's decision on one item: a rejection rejects the request and
 * cascade-rejects its other pending items; the last decision completes the
 * group, and approving every item approves the request (`settles`).
 */
export function decide(
  current: FlightRequest,
  itemId: string,
  decision: ItemDecision,
  requestId?: string,
): { change: FlightRequestChange; settles: DecisionOutcome['settles'] } {
  const outcome = decideItem(current.review.items, itemId, decision);
  const history = outcome.settles ? [transition(current.status, outcome.settles, decision)] : [];
  const change = {
    set: {
      ...(outcome.settles ? { status: outcome.settles } : {}),
      status_history: [...current.status_history, ...history],
      review: { ...current.review, items: outcome.items, complete: outcome.completed },
      updated_at: decision.at,
    },
    events: [
      ...decisionEvents(current, outcome, history, decision.at, requestId),
      reviewItemsChanged(current, versionAfter(current), outcome.items, requestId),
    ],
  };
  return { change, settles: outcome.settles };
}

/** cascade_rejection (when other items fell with it), review_completed (when none is pending), then the status change. */
function decisionEvents(
  request: FlightRequest,
  outcome: DecisionOutcome,
  history: StatusHistoryEntry[],
  at: Date,
  requestId?: string,
): EventEnvelope[] {
  const subject = { ...request, status: outcome.settles ?? request.status };
  const events: EventEnvelope[] = [];
  if (outcome.cascaded.length > 0) events.push(cascadeRejection(subject, outcome.decided, outcome.cascaded, requestId));
  if (outcome.completed) events.push(reviewCompleted(subject, subject.status, outcome.items, at, requestId));
  events.push(...statusChanges(subject, request.status_history, history, requestId));
  return events;
}

const RESCREENING_ACTOR = 'screening';

/**
 * A zone created or changed, screened against a live request (`isLive`;
 * `rescreenAgainstZone`'s outcome): an approval it prohibits is Rescinded, a
 * pending request it prohibits is Rejected, one it sends to another authority
 * gains that review item. Null when there is nothing to change: the request
 * was screened against this zone version already, or the zone changes nothing for it.
 */
export function rescreen(
  current: FlightRequest,
  outcome: ZoneRescreening,
  zone: GeoZone,
  screening: ZoneScreening,
  context: Omit<ChangeContext, 'actor'> & { newItemId: () => string },
): FlightRequestChange | null {
  if (screenedAlready(current, screening)) return null;
  const screenings = [...(current.zone_screenings ?? []), screening];
  switch (outcome.effect) {
    case 'none':
      return null;
    case 'rescind':
    case 'reject': {
      const target = outcome.effect === 'rescind' ? 'Rescinded' : 'Rejected';
      const entry = transition(current.status, target, { actor: RESCREENING_ACTOR, reason: outcome.finding.message, at: context.at });
      const closed = close(current, entry, `The flight request was ${target.toLowerCase()}: ${outcome.finding.message}`, context.requestId);
      const findings = [...current.review.findings, outcome.finding];
      return {
        ...closed,
        set: {
          ...closed.set,
          review: { ...(closed.set.review ?? current.review), findings },
          zone_screenings: screenings,
          ...(target === 'Rescinded' ? { rescission: rescission(zone, outcome.finding, context.at) } : {}),
        },
      };
    }
    case 'review': {
      const items = [...current.review.items, ...openItems(outcome.items, context.newItemId)];
      const findings: Finding[] = [...current.review.findings, ...outcome.findings];
      return {
        set: {
          review: { findings, items, complete: isComplete(items) },
          review_authorities: reviewAuthorities(items),
          zone_screenings: screenings,
          updated_at: context.at,
        },
        events: outcome.items.length > 0 ? [reviewItemsChanged(current, versionAfter(current), items, context.requestId)] : [],
      };
    }
  }
}

function rescission(zone: GeoZone, finding: Finding, at: Date) {
  return { zone_id: zone.id, zone_name: zone.name, reason: finding.message, rescinded_at: at };
}

/** Approved or Pending, and the flight window has not ended: what a new zone can still affect. */
export function isLive(request: Pick<FlightRequest, 'status' | 'end_time'>, now: Date): boolean {
  return (request.status === 'Approved' || request.status === 'Pending') && request.end_time.getTime() > now.getTime();
}

export function screenedAlready(request: Pick<FlightRequest, 'zone_screenings'>, screening: ZoneScreening): boolean {
  return (request.zone_screenings ?? []).some((done) => done.zone_id === screening.zone_id && done.version === screening.version);
}

/**
 * A change to a final status (cancelled, expired, rejected or rescinded by a
 * zone, ended): the new history entry, its pending items withdrawn, and the events of both.
 */
function close(current: FlightRequest, entry: StatusHistoryEntry, withdrawReason: string, requestId?: string): Required<FlightRequestChange> {
  const items = withdrawPending(current.review.items, entry.actor, entry.at, withdrawReason);
  const withdrawn = items.some((item, index) => item.status !== current.review.items[index]?.status);
  return {
    set: {
      status: entry.status,
      status_history: [...current.status_history, entry],
      review: { ...current.review, items, complete: isComplete(items) },
      // A final status frees the airspace the request held (or was claiming) at once.
      deconfliction: null,
      updated_at: entry.at,
    },
    events: [
      ...statusChanges(current, current.status_history, [entry], requestId),
      ...(withdrawn ? [reviewItemsChanged(current, versionAfter(current), items, requestId)] : []),
    ],
  };
}
