import { AUTHORISATION_ISSUER, FLIGHT_AREA_CANONICALISATION, type AuthorisationClaims, type FlightRequestStatus } from '@dfc/contracts';
import type { FlightRequestGeometry } from '../flight-request/flight-request.js';
import type { StatusHistoryEntry } from '../state-machine/transitions.js';
import { volumeRecords, type StoredVolume } from '../volumes/flight-volume.js';
import { toUtcZ } from '../time-format.js';
import { flightAreaDigest } from './flight-area-digest.js';

/*
 * The claims of a signed authorisation, built from the request alone,
 * so the same Approved request always gives the same claims (and, Ed25519
 * being deterministic, the same token): nothing needs to be stored at approval.
 */

/** What an authorisation is made of: the request's fields it names. */
export interface AuthorisableRequest {
  /** The request's uuid. */
  _id: string;
  operator_uuid: string;
  status: FlightRequestStatus;
  start_time: Date;
  end_time: Date;
  max_altitude: number;
  /** A request submitted with volumes names them in its authorisation. */
  volumes?: StoredVolume[] | null;
  area: { bbox: number[] };
  geometry: Pick<FlightRequestGeometry, 'flight_area'>;
  status_history: StatusHistoryEntry[];
}

export interface Approval {
  /** The approval's index in status_history: with the request uuid, it names the authorisation. */
  position: number;
  entry: StatusHistoryEntry;
}

/**
 * The latest approval in the request's history, or null. A suspension ends in a new approval (the authority's, or
 * the reinstatement when its zone is lifted), and an amendment approved again adds one too: each approval is an
 * authorisation of its own, and only the latest can still stand.
 */
export function approvalOf(request: Pick<AuthorisableRequest, 'status_history'>): Approval | null {
  const position = request.status_history.findLastIndex((entry) => entry.status === 'Approved');
  const entry = request.status_history[position];
  return entry ? { position, entry } : null;
}

/** The approval at `position` of the history, or null when that entry is no approval. */
export function approvalAt(request: Pick<AuthorisableRequest, 'status_history'>, position: number): Approval | null {
  const entry = request.status_history[position];
  return entry?.status === 'Approved' ? { position, entry } : null;
}

/** The approval an Approved (or Activated: flying on it) request's authorisation rests on; null otherwise. */
export function currentApproval(request: Pick<AuthorisableRequest, 'status' | 'status_history'>): Approval | null {
  return request.status === 'Approved' || request.status === 'Activated' ? approvalOf(request) : null;
}

/** `<request uuid>.<position>`: unique per approval, and it leads back to its request without a lookup table. */
export function authorisationId(requestUuid: string, position: number): string {
  return `${requestUuid}.${position}`;
}

const AUTHORISATION_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(0|[1-9]\d{0,3})$/;

export function parseAuthorisationId(jti: string): { requestUuid: string; position: number } | null {
  const match = AUTHORISATION_ID.exec(jti);
  if (!match?.[1] || !match[2]) return null;
  return { requestUuid: match[1], position: Number(match[2]) };
}

/** Seconds since the epoch, as JWT NumericDate; a fraction is dropped (an expiry never lands later than the window). */
function numericDate(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function authorisationClaims(
  request: AuthorisableRequest,
  approval: Approval,
  operatorRegistrationNumber: string | null,
): AuthorisationClaims {
  const [west = 0, south = 0, east = 0, north = 0] = request.area.bbox;
  return {
    iss: AUTHORISATION_ISSUER,
    sub: request._id,
    jti: authorisationId(request._id, approval.position),
    iat: numericDate(approval.entry.at),
    exp: numericDate(request.end_time),
    flight_request_uuid: request._id,
    operator_uuid: request.operator_uuid,
    operator_registration_number: operatorRegistrationNumber,
    start_time: toUtcZ(request.start_time),
    end_time: toUtcZ(request.end_time),
    max_altitude: request.max_altitude,
    flight_area_sha256: flightAreaDigest(request.geometry.flight_area),
    flight_area_canonicalisation: FLIGHT_AREA_CANONICALISATION,
    flight_area_bbox: [west, south, east, north],
    ...(request.volumes && request.volumes.length > 0
      ? { volumes: volumeRecords({ ...request, area: { bbox: [west, south, east, north], feature_count: request.volumes.length } }) }
      : {}),
    decision: 'Approved',
    decided_by: approval.entry.actor,
  };
}
