import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields } from '@dfc/kit/outbox';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';

/**
 * A flight request as stored: one document holds the aggregate and its outbox.
 * Two encodings are the local engine's and stay in the store: the geometry as
 * JSON text, and the bounding box in flat fields.
 */
/**
 * A submission whose approval is still reserving its airspace: stored so that
 * other claims can find (and, if its writer died, withdraw) it, shown to no
 * one until it completes with its real status.
 */
export const SCREENING = 'Screening';

export interface StoredFlightRequest extends Omit<FlightRequest, 'geometry' | 'status'> {
  status: FlightRequest['status'] | typeof SCREENING;
  /** Flat copies of area.bbox so deconfliction prefilters with plain range conditions. */
  bbox_west: number;
  bbox_south: number;
  bbox_east: number;
  bbox_north: number;
  /** The hour of `end_time`, by which the window-close sweep finds the request on the local engine (engine-gaps `findUpTo`). */
  end_time_hour?: number;
  /**
   * The FeatureCollection and the screening polygons as JSON text: the local
   * engine refuses nested arrays, a client's feature properties may hold keys
   * the database refuses ($, dots), and nothing ever queries inside them.
   */
  flight_area_json: string;
  polygons_json: string;
}

export type FlightRequestModel = Model<StoredFlightRequest>;

const flightRequestSchema = new Schema<StoredFlightRequest>(
  {
    _id: { type: String, required: true },
    operator_uuid: { type: String, required: true },
    status: { type: String, required: true },
    operator_name: String,
    operator_email: String,
    operator_phone: String,
    operator_company: { type: String, default: null },
    operational_authorisation_number: { type: String, default: null },
    start_time: { type: Date, required: true },
    end_time: { type: Date, required: true },
    end_time_hour: Number,
    max_altitude: Number,
    // A request submitted with volumes: their bands, windows and boxes (areas in polygons_json, by index); null otherwise.
    volumes: { type: Schema.Types.Mixed, default: null },
    aircraft_type: String,
    purpose: String,
    area: { type: Schema.Types.Mixed, required: true },
    bbox_west: Number,
    bbox_south: Number,
    bbox_east: Number,
    bbox_north: Number,
    flight_area_json: String,
    polygons_json: String,
    review: { type: Schema.Types.Mixed, required: true },
    review_authorities: { type: [String], default: [] },
    cancellation: { type: Schema.Types.Mixed, default: null },
    rescission: { type: Schema.Types.Mixed, default: null },
    activation: { type: Schema.Types.Mixed, default: null },
    revision: { type: Number, default: 1 },
    deconfliction: { type: Schema.Types.Mixed, default: null },
    suspension: { type: Schema.Types.Mixed, default: null },
    zone_screenings: { type: [Object], default: [] },
    status_history: { type: [Object], default: [] },
    idempotency: { type: Schema.Types.Mixed, default: null },
    version: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'flight_requests', versionKey: false, minimize: false },
);

// Lists, newest first, `_id` breaking ties for stable pages; the date window (and several
// statuses, `$in` before a sort) are ranges, filtered on the index keys that follow the sort
// (equality → sort → range; the README lists query → index).
flightRequestSchema.index({ created_at: -1, _id: -1, status: 1, start_time: 1, end_time: 1 });
flightRequestSchema.index({ status: 1, created_at: -1, _id: -1, start_time: 1, end_time: 1 });
flightRequestSchema.index({ operator_uuid: 1, created_at: -1, _id: -1, status: 1, start_time: 1, end_time: 1 });
flightRequestSchema.index({ operator_uuid: 1, status: 1, created_at: -1, _id: -1, start_time: 1, end_time: 1 });
flightRequestSchema.index({ review_authorities: 1, created_at: -1, _id: -1, status: 1, start_time: 1, end_time: 1 });
flightRequestSchema.index({ review_authorities: 1, status: 1, created_at: -1, _id: -1, start_time: 1, end_time: 1 });
// Expiry sweep: Pending, start passed, oldest start first.
flightRequestSchema.index({ status: 1, start_time: 1 });
// Purge: requests of a final status last changed before the retention's cutoff.
flightRequestSchema.index({ status: 1, updated_at: 1 });
// Deconfliction and rescreening: live flights (not yet ended) whose window and bounding box meet
// the area's; `end_time` first keeps the range small however long the history grows. The
// window-close sweep walks it too: one status, oldest end first.
flightRequestSchema.index({ status: 1, end_time: 1, start_time: 1, bbox_west: 1, bbox_east: 1, bbox_south: 1, bbox_north: 1, operator_uuid: 1 });
// The window-close sweep on the local engine, which reads the last hours by equality.
flightRequestSchema.index({ status: 1, end_time_hour: 1 });
// A review decision finds the request that owns the item.
flightRequestSchema.index({ 'review.items.id': 1 });
// A zone lifted finds the requests it suspended (only a Suspended request has a suspension).
flightRequestSchema.index({ 'suspension.zone_ids': 1 });

export function flightRequestModel(connection: Connection): FlightRequestModel {
  return connection.models['FlightRequest'] ?? connection.model<StoredFlightRequest>('FlightRequest', flightRequestSchema);
}
