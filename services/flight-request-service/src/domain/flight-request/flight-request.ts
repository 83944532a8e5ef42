import type { FeatureCollection } from 'geojson';
import type { EventEnvelope, FlightRequestStatus } from '@dfc/contracts';
import type { Deconfliction } from '../deconfliction/reservation.js';
import type { AreaPolygon, AreaSummary } from '../geometry/flight-area.js';
import type { ReviewItem } from '../review/review-group.js';
import type { Finding } from '../screening/screen.js';
import type { StatusHistoryEntry } from '../state-machine/transitions.js';
import type { ValidSubmission } from '../submission/check-submission.js';

/**
 * A flight request, the aggregate: the request, its review group and its
 * history, changed only as a whole (changes.ts says how). How it is stored
 * is the store's business alone.
 */
export interface FlightRequest extends Omit<ValidSubmission, 'area'> {
  /** The request's uuid. */
  _id: string;
  status: FlightRequestStatus;
  /** What every reader is shown of the area: its bounding box, size and feature counts. */
  area: AreaSummary;
  geometry: FlightRequestGeometry;
  review: Review;
  /** Authorities with any item on the request: who may read it, and a reviewer's list. */
  review_authorities: string[];
  cancellation: { reason: string; cancelled_at: Date } | null;
  /** Set when a zone created or changed after the approval prohibits the flight (status Rescinded). */
  rescission?: Rescission | null;
  /** Set while Suspended: the authorisation zones that put the approval back under review (none otherwise). */
  suspension?: Suspension | null;
  /** The airspace reservation: being claimed for an approval, or held while Approved (none otherwise). */
  deconfliction?: Deconfliction | null;
  /** The zone versions this request was screened again against: a redelivered zone event changes nothing twice. */
  zone_screenings?: ZoneScreening[];
  status_history: StatusHistoryEntry[];
  idempotency: { key: string; body_sha256: string } | null;
  /** Each change is decided from one version and produces the next. */
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface FlightRequestGeometry {
  /** As submitted (polygons right-handed, circles as sent): returned with include_geometry, hashed into an authorisation. */
  flight_area: FeatureCollection;
  /** Every feature as a (Multi)Polygon, circles as 64-gons: what screening and deconfliction test. */
  polygons: AreaPolygon[];
}

/** A request as lists and the review queue read it: without its geometry, which can be large. */
export type FlightRequestSummary = Omit<FlightRequest, 'geometry'>;

export interface Review {
  findings: Finding[];
  items: ReviewItem[];
  complete: boolean;
}

export interface Rescission {
  zone_id: string;
  zone_name: string;
  reason: string;
  rescinded_at: Date;
}

export interface Suspension {
  /** The zones whose authorities must approve again: each has a pending zone_authorisation item on the request. */
  zone_ids: string[];
  suspended_at: Date;
}

export interface ZoneScreening {
  zone_id: string;
  version: number;
}

/** What a change of a request sets, and the events it causes (written together, in one write). */
export interface FlightRequestChange {
  set: Partial<Omit<FlightRequest, '_id' | 'version'>>;
  events?: EventEnvelope[];
}
