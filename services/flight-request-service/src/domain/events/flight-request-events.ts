import {
  newEvent,
  RoutingKeys,
  toOffsetTimestamp,
  toOffsetTimestampOrNull,
  type EventEnvelope,
  type FlightRequestAmended,
  type FlightRequestCascadeRejection,
  type FlightRequestRestrictionNotice,
  type FlightRequestReviewCompleted,
  type FlightRequestStatus,
  type FlightRequestStatusChanged,
  type FlightRequestSubmitted,
  type RestrictionNoticeEffect,
  type ReviewItemSummary,
} from '@dfc/contracts';
import type { Finding } from '../screening/screen.js';
import type { GeoZone } from '../zones/geo-zone.js';
import type { ReviewItem } from '../review/review-group.js';
import type { StatusHistoryEntry } from '../state-machine/transitions.js';
import { toUtcZ } from '../time-format.js';

/** The request as the events see it. */
export interface EventSubject {
  /** The request's uuid. */
  _id: string;
  operator_uuid: string;
  status: FlightRequestStatus;
  start_time: Date;
  end_time: Date;
}

export function submitted(subject: EventSubject, requestId?: string): EventEnvelope<FlightRequestSubmitted> {
  return newEvent(
    RoutingKeys.flightRequestSubmitted,
    subject.operator_uuid,
    {
      flight_request_uuid: subject._id,
      operator_uuid: subject.operator_uuid,
      status: subject.status,
      start_time: toUtcZ(subject.start_time),
      end_time: toUtcZ(subject.end_time),
    },
    requestId,
  );
}

/**
 * One per new history entry, each naming the status it left (null for the
 * first) and its 1-based position in the history (`sequence`).
 */
export function statusChanges(
  subject: EventSubject,
  earlier: StatusHistoryEntry[],
  entries: StatusHistoryEntry[],
  requestId?: string,
): EventEnvelope<FlightRequestStatusChanged>[] {
  return entries.map((entry, index) => {
    const previous = index === 0 ? earlier.at(-1) : entries[index - 1];
    return newEvent<FlightRequestStatusChanged>(
      RoutingKeys.flightRequestStatusChanged,
      subject.operator_uuid,
      {
        flight_request_uuid: subject._id,
        operator_uuid: subject.operator_uuid,
        previous_status: previous?.status ?? null,
        status: entry.status,
        reason: entry.reason,
        actor: entry.actor,
        changed_at: toOffsetTimestamp(entry.at),
        sequence: earlier.length + index + 1,
      },
      requestId,
    );
  });
}

export function cascadeRejection(
  subject: EventSubject,
  rejected: ReviewItem,
  cascaded: ReviewItem[],
  requestId?: string,
): EventEnvelope<FlightRequestCascadeRejection> {
  return newEvent(
    RoutingKeys.flightRequestCascadeRejection,
    subject.operator_uuid,
    {
      flight_request_uuid: subject._id,
      operator_uuid: subject.operator_uuid,
      rejected_item: itemSummary(rejected),
      cascaded_items: cascaded.map(itemSummary),
      reason: rejected.reason ?? '',
      occurred_at: toOffsetTimestamp(rejected.decided_at ?? new Date()),
    },
    requestId,
  );
}

export function reviewCompleted(
  subject: EventSubject,
  outcome: FlightRequestStatus,
  items: ReviewItem[],
  at: Date,
  requestId?: string,
): EventEnvelope<FlightRequestReviewCompleted> {
  const count = (status: ReviewItem['status']) => items.filter((item) => item.status === status).length;
  return newEvent(
    RoutingKeys.flightRequestReviewCompleted,
    subject.operator_uuid,
    {
      flight_request_uuid: subject._id,
      operator_uuid: subject.operator_uuid,
      outcome,
      items: items.map(itemSummary),
      counts: {
        total: items.length,
        approved: count('approved'),
        rejected: count('rejected'),
        cascade_rejected: count('cascade_rejected'),
        withdrawn: count('withdrawn'),
      },
      completed_at: toOffsetTimestamp(at),
    },
    requestId,
  );
}

/** The zone screened, at the version screened: what a restriction notice names. */
export interface NoticeZone {
  zone: GeoZone;
  version: number;
}

/**
 * flight_request.restriction_notice: `finding` is new to the request; `sequence` is the status-history entry the
 * same change added (null when it changed no status).
 */
export function restrictionNotice(
  subject: EventSubject,
  { zone, version }: NoticeZone,
  finding: Finding,
  effect: RestrictionNoticeEffect,
  context: { at: Date; sequence: number | null; requestId?: string },
): EventEnvelope<FlightRequestRestrictionNotice> {
  const messages = zone.published?.messages ?? [];
  return newEvent(
    RoutingKeys.flightRequestRestrictionNotice,
    subject.operator_uuid,
    {
      flight_request_uuid: subject._id,
      operator_uuid: subject.operator_uuid,
      status: subject.status,
      zone: {
        id: zone.id,
        version,
        identifier: zone.identifier,
        country: zone.country,
        type: zone.type,
        published_type: zone.published?.published_type ?? null,
        restriction: zone.restriction,
        name: zone.name,
        authority: zone.authority,
      },
      message: messages[0]?.text ?? null,
      messages: messages.map(({ text, lang }) => ({ text, lang })),
      finding: { code: finding.code, message: finding.message, authority: finding.authority },
      // A request without volumes is one volume, the first.
      volume: 0,
      effect,
      sequence: context.sequence,
      occurred_at: toOffsetTimestamp(context.at),
    },
    context.requestId,
  );
}

/** What an amendment tells besides the request itself. */
export interface AmendmentFacts {
  revision: number;
  previous_status: FlightRequestStatus;
  changed: string[];
  approvals_kept: number;
  revoked_authorisation: string | null;
  amended_at: Date;
  sequence: number | null;
}

export function amended(
  subject: EventSubject & { max_altitude: number },
  facts: AmendmentFacts,
  requestId?: string,
): EventEnvelope<FlightRequestAmended> {
  return newEvent(
    RoutingKeys.flightRequestAmended,
    subject.operator_uuid,
    {
      flight_request_uuid: subject._id,
      operator_uuid: subject.operator_uuid,
      revision: facts.revision,
      previous_status: facts.previous_status,
      status: subject.status,
      changed: facts.changed,
      approvals_kept: facts.approvals_kept,
      revoked_authorisation: facts.revoked_authorisation,
      start_time: toUtcZ(subject.start_time),
      end_time: toUtcZ(subject.end_time),
      max_altitude: subject.max_altitude,
      amended_at: toOffsetTimestamp(facts.amended_at),
      sequence: facts.sequence,
    },
    requestId,
  );
}

function itemSummary(item: ReviewItem): ReviewItemSummary {
  return {
    id: item.id,
    kind: item.kind,
    authority: item.authority,
    zone_id: item.zone_id,
    status: item.status,
    reason: item.reason,
    decided_at: toOffsetTimestampOrNull(item.decided_at),
  };
}
