import type { FlightAreaLimits } from '../geometry/flight-area.js';

/** PRODUCT.md "Rules": every bound a submission is checked against, from configuration. */
export interface SubmissionLimits {
  maxAltitudeM: number;
  maxDurationHours: number;
  maxStartAheadDays: number;
  startGraceMinutes: number;
  flightArea: FlightAreaLimits;
}
