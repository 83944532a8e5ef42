import type { EndReason, EventEnvelope, RestrictionNoticeEffect } from '@dfc/contracts';
import { cascadeRejection, restrictionNotice, reviewCompleted, statusChanges, submitted, type NoticeZone } from '../events/flight-request-events.js';
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
  type ReviewItem,
} from '../review/review-group.js';
import type { Finding, ScreeningResult } from '../screening/screen.js';
import {
  activation,
  canTransition,
  cancellation,
  ending,
  initialEntry,
  LIVE_STATUSES,
  transition,
  type StatusHistoryEntry,
} from '../state-machine/transitions.js';
import type { ValidSubmission } from '../submission/check-submission.js';
import type { GeoZone } from '../zones/geo-zone.js';
import type { FlightRequest, FlightRequestChange, Suspension, ZoneScreening } from './flight-request.js';

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

/** DELETE: Pending, Approved or Suspended, while the window has not ended, becomes Cancelled; pending items are withdrawn. */
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
      ...(current.suspension ? { suspension: suspensionAfter(current.suspension, outcome) } : {}),
      // A rejection frees the airspace a suspended approval kept (or a claim being taken) at once.
      ...(outcome.settles === 'Rejected' && current.deconfliction ? { deconfliction: null } : {}),
      updated_at: decision.at,
    },
    events: [
      ...decisionEvents(current, outcome, history, decision.at, requestId),
      reviewItemsChanged(current, versionAfter(current), outcome.items, requestId),
    ],
  };
  return { change, settles: outcome.settles };
}

/** A decision that settles the request ends its suspension; otherwise the zones whose items are still pending suspend it. */
function suspensionAfter(suspension: Suspension, outcome: DecisionOutcome): Suspension | null {
  if (outcome.settles) return null;
  const pending = new Set(outcome.items.flatMap((item) => (item.status === 'pending' && item.zone_id !== null ? [item.zone_id] : [])));
  return { ...suspension, zone_ids: suspension.zone_ids.filter((id) => pending.has(id)) };
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

/** What each rescreening effect did, as its restriction notice says. */
const NOTICE_EFFECT: Record<Exclude<ZoneRescreening['effect'], 'none'>, RestrictionNoticeEffect> = {
  rescind: 'rescinded',
  reject: 'rejected',
  review: 'review_added',
  suspend: 'suspended',
  notice: 'notice',
  lift: 'reinstated',
};

/**
 * A zone created, changed or lifted, screened against a live request (`isLive`;
 * `rescreenAgainstZone`'s outcome): an approval it prohibits is Rescinded, a
 * pending request it prohibits is Rejected, one it sends to another authority
 * gains that review item, an approval it sends to another authority is
 * Suspended with that item, and a suspension whose zone no longer needs its
 * authority is lifted. Every finding the request did not have is told to its
 * operator (`restriction_notice`), in the same write. Null when there is
 * nothing to change: the request was screened against this zone version
 * already, or the zone changes nothing for it.
 */
export function rescreen(
  current: FlightRequest,
  outcome: ZoneRescreening,
  subject: NoticeZone,
  screening: ZoneScreening,
  context: Omit<ChangeContext, 'actor'> & { newItemId: () => string },
): FlightRequestChange | null {
  if (screenedAlready(current, screening) || outcome.effect === 'none') return null;
  const change = zoneChange(current, outcome, subject.zone, context);
  const after: FlightRequest = { ...current, ...change.set };
  const sequence = after.status_history.length > current.status_history.length ? after.status_history.length : null;
  const effect = noticeEffect(outcome, after);
  const notices = outcome.findings.map((finding) =>
    restrictionNotice(after, subject, finding, effect, { at: context.at, sequence, requestId: context.requestId }),
  );
  return {
    set: { ...change.set, zone_screenings: [...(current.zone_screenings ?? []), screening] },
    events: [...(change.events ?? []), ...notices],
  };
}

/** A lift reinstates only when no other zone still suspends the request; a review adds an item only when the zone needs one. */
function noticeEffect(outcome: Exclude<ZoneRescreening, { effect: 'none' }>, after: FlightRequest): RestrictionNoticeEffect {
  if (outcome.effect === 'lift' && after.status !== 'Approved') return 'notice';
  if (outcome.effect === 'review' && outcome.items.length === 0) return 'notice';
  return NOTICE_EFFECT[outcome.effect];
}

function zoneChange(
  current: FlightRequest,
  outcome: Exclude<ZoneRescreening, { effect: 'none' }>,
  zone: GeoZone,
  context: Omit<ChangeContext, 'actor'> & { newItemId: () => string },
): FlightRequestChange {
  const findings: Finding[] = [...current.review.findings, ...outcome.findings];
  switch (outcome.effect) {
    case 'rescind':
    case 'reject': {
      const target = outcome.effect === 'rescind' ? 'Rescinded' : 'Rejected';
      const entry = transition(current.status, target, { actor: RESCREENING_ACTOR, reason: outcome.finding.message, at: context.at });
      const closed = close(current, entry, `The flight request was ${target.toLowerCase()}: ${outcome.finding.message}`, context.requestId);
      return {
        ...closed,
        set: {
          ...closed.set,
          review: { ...(closed.set.review ?? current.review), findings },
          ...(target === 'Rescinded' ? { rescission: rescission(zone, outcome.finding, context.at) } : {}),
        },
      };
    }
    case 'review': {
      const items = [...current.review.items, ...openItems(outcome.items, context.newItemId)];
      return {
        set: { review: { findings, items, complete: isComplete(items) }, review_authorities: reviewAuthorities(items), updated_at: context.at },
        events: outcome.items.length > 0 ? [reviewItemsChanged(current, versionAfter(current), items, context.requestId)] : [],
      };
    }
    case 'suspend':
      return suspend(current, findings, openItems(outcome.items, context.newItemId), context);
    case 'notice':
      return { set: { review: { ...current.review, findings }, updated_at: context.at } };
    case 'lift':
      return lift(current, findings, zone, context);
  }
}

/**
 * An approval back under review: the new items pending, the request Suspended (it stays so when it was already),
 * its airspace still reserved, so that the approval that ends the suspension never has to claim it again.
 */
function suspend(current: FlightRequest, findings: Finding[], opened: ReviewItem[], context: Omit<ChangeContext, 'actor'>): FlightRequestChange {
  const items = [...current.review.items, ...opened];
  const zoneIds = [...(current.suspension?.zone_ids ?? []), ...opened.flatMap((item) => (item.zone_id === null ? [] : [item.zone_id]))];
  const history =
    current.status === 'Suspended'
      ? []
      : [transition(current.status, 'Suspended', { actor: RESCREENING_ACTOR, reason: opened[0]?.message ?? null, at: context.at })];
  const set: FlightRequestChange['set'] = {
    status: 'Suspended',
    status_history: [...current.status_history, ...history],
    review: { findings, items, complete: isComplete(items) },
    review_authorities: reviewAuthorities(items),
    suspension: { zone_ids: [...new Set(zoneIds)], suspended_at: current.suspension?.suspended_at ?? context.at },
    updated_at: context.at,
  };
  const subject = { ...current, status: 'Suspended' as const };
  return {
    set,
    events: [
      ...statusChanges(subject, current.status_history, history, context.requestId),
      reviewItemsChanged(current, versionAfter(current), items, context.requestId),
    ],
  };
}

/**
 * The zone no longer needs its authority's decision: its pending item is withdrawn, and when no other zone
 * suspends the request any more it is Approved again on the reservation it kept.
 */
function lift(current: FlightRequest, findings: Finding[], zone: GeoZone, context: Omit<ChangeContext, 'actor'>): FlightRequestChange {
  const reason = `Zone "${zone.name}" (${zone.id}) no longer needs authorisation for this flight.`;
  const items = current.review.items.map((item) =>
    item.status === 'pending' && item.kind === 'zone_authorisation' && item.zone_id === zone.id
      ? { ...item, status: 'withdrawn' as const, reason, decided_at: context.at, decided_by: RESCREENING_ACTOR }
      : item,
  );
  const zoneIds = (current.suspension?.zone_ids ?? []).filter((id) => id !== zone.id);
  const reinstated = zoneIds.length === 0 && isComplete(items);
  const history = reinstated
    ? [transition(current.status, 'Approved', { actor: RESCREENING_ACTOR, reason: `${reason} The approval stands again.`, at: context.at })]
    : [];
  const withdrawn = items.some((item, index) => item.status !== current.review.items[index]?.status);
  const subject = { ...current, status: reinstated ? ('Approved' as const) : current.status };
  return {
    set: {
      ...(reinstated ? { status: 'Approved' as const } : {}),
      status_history: [...current.status_history, ...history],
      review: { findings, items, complete: isComplete(items) },
      suspension: reinstated ? null : { zone_ids: zoneIds, suspended_at: current.suspension?.suspended_at ?? context.at },
      updated_at: context.at,
    },
    events: [
      ...statusChanges(subject, current.status_history, history, context.requestId),
      ...(withdrawn ? [reviewItemsChanged(current, versionAfter(current), items, context.requestId)] : []),
    ],
  };
}

function rescission(zone: GeoZone, finding: Finding, at: Date) {
  return { zone_id: zone.id, zone_name: zone.name, reason: finding.message, rescinded_at: at };
}

/** A live status (`LIVE_STATUSES`), and the flight window has not ended: what a new zone can still affect. */
export function isLive(request: Pick<FlightRequest, 'status' | 'end_time'>, now: Date): boolean {
  return LIVE_STATUSES.includes(request.status) && request.end_time.getTime() > now.getTime();
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
      ...(current.suspension ? { suspension: null } : {}),
      updated_at: entry.at,
    },
    events: [
      ...statusChanges(current, current.status_history, [entry], requestId),
      ...(withdrawn ? [reviewItemsChanged(current, versionAfter(current), items, requestId)] : []),
    ],
  };
}
