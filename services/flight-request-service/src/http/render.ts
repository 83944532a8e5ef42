import type { FindingRecord, FlightArea, FlightRequestRecord, ReviewItemRecord, ReviewQueueEntry } from '@dfc/contracts';
import type { ReviewItem } from '../domain/review/review-group.js';
import type { Finding } from '../domain/screening/screen.js';
import { aircraftCategoryOf } from '../domain/submission/aircraft-category.js';
import { toUtcZ } from '../domain/time-format.js';
import type { FlightRequestGeometry, FlightRequestSummary } from '../domain/flight-request/flight-request.js';
import { volumeRecords } from '../domain/volumes/flight-volume.js';
import { toOffsetTimestamp, toOffsetTimestampOrNull } from '@dfc/contracts';

/** The public record; the full flight_area only when asked for (it can be large). */
export function flightRequestRecord(doc: FlightRequestSummary & { geometry?: FlightRequestGeometry }, includeGeometry = false): FlightRequestRecord {
  return {
    uuid: doc._id,
    operator_uuid: doc.operator_uuid,
    status: doc.status,
    operator_name: doc.operator_name,
    operator_email: doc.operator_email,
    operator_phone: doc.operator_phone,
    operator_company: doc.operator_company ?? null,
    operational_authorisation_number: doc.operational_authorisation_number ?? null,
    start_time: toUtcZ(doc.start_time),
    end_time: toUtcZ(doc.end_time),
    max_altitude: doc.max_altitude,
    aircraft_type: doc.aircraft_type,
    aircraft_category: aircraftCategoryOf(doc.aircraft_type),
    purpose: doc.purpose,
    area: doc.area,
    ...(includeGeometry && doc.geometry ? { flight_area: doc.geometry.flight_area as FlightArea } : {}),
    volumes: volumeRecords(doc),
    review: {
      findings: doc.review.findings.map(findingRecord),
      items: doc.review.items.map(reviewItemRecord),
      complete: doc.review.complete,
    },
    cancellation: doc.cancellation ? { reason: doc.cancellation.reason, cancelled_at: toOffsetTimestamp(doc.cancellation.cancelled_at) } : null,
    rescission: doc.rescission
      ? {
          zone_id: doc.rescission.zone_id,
          zone_name: doc.rescission.zone_name,
          reason: doc.rescission.reason,
          rescinded_at: toOffsetTimestamp(doc.rescission.rescinded_at),
        }
      : null,
    suspension: doc.suspension ? { zone_ids: [...doc.suspension.zone_ids], suspended_at: toOffsetTimestamp(doc.suspension.suspended_at) } : null,
    activation: doc.activation
      ? {
          activated_at: toOffsetTimestampOrNull(doc.activation.activated_at),
          ended_at: toOffsetTimestampOrNull(doc.activation.ended_at),
          end_reason: doc.activation.end_reason,
        }
      : null,
    revision: doc.revision ?? 1,
    status_history: doc.status_history.map((entry) => ({
      status: entry.status,
      at: toOffsetTimestamp(entry.at),
      actor: entry.actor,
      reason: entry.reason,
    })),
    created_at: toOffsetTimestamp(doc.created_at),
    updated_at: toOffsetTimestamp(doc.updated_at),
  };
}

/**
 * A finding as the API shows it, field by field: whatever else a stored finding
 * carries (findings screened before issue 17 named the conflicting flight) stays out.
 */
export function findingRecord(finding: Finding): FindingRecord {
  const { code, message, zone_id, zone_name, authority, conflict, zone_identifier, zone_country, terrain_unknown, volume } = finding;
  return {
    code,
    message,
    zone_id,
    zone_name,
    authority,
    ...(zone_identifier === undefined ? {} : { zone_identifier, zone_country: zone_country ?? null }),
    ...(terrain_unknown ? { terrain_unknown } : {}),
    ...(volume === undefined ? {} : { volume }),
    ...(conflict ? { conflict } : {}),
  };
}

export function reviewItemRecord(item: ReviewItem): ReviewItemRecord {
  return {
    id: item.id,
    kind: item.kind,
    authority: item.authority,
    zone_id: item.zone_id,
    finding_codes: item.finding_codes,
    message: item.message,
    status: item.status,
    reason: item.reason,
    decided_at: toOffsetTimestampOrNull(item.decided_at),
    decided_by: item.decided_by,
  };
}

/** A review queue entry (and a decision's answer): the item with its request's essentials. */
export function reviewQueueEntry(doc: FlightRequestSummary, itemId: string): ReviewQueueEntry | null {
  const item = doc.review.items.find((candidate) => candidate.id === itemId);
  if (!item) return null;
  return {
    ...reviewItemRecord(item),
    flight_request: {
      uuid: doc._id,
      operator_uuid: doc.operator_uuid,
      status: doc.status,
      start_time: toUtcZ(doc.start_time),
      end_time: toUtcZ(doc.end_time),
      max_altitude: doc.max_altitude,
      aircraft_type: doc.aircraft_type,
      purpose: doc.purpose,
      bbox: doc.area.bbox,
      volumes: volumeRecords(doc),
    },
  };
}
