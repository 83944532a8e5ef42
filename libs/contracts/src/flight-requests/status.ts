import { Type, type Static } from '@sinclair/typebox';

/**
 * PRODUCT.md "States"; Rescinded: an approval withdrawn because a new restriction now forbids the flight;
 * Suspended: an approval put back under an authority's review by a new authorisation zone over it;
 * Activated: an approved flight its operator has started, inside its window; Ended: a flight over (ended
 * by its operator, or by the system when its window closed), its airspace given back.
 */
export const FLIGHT_REQUEST_STATUSES = [
  'Pending',
  'Approved',
  'Rejected',
  'Cancelled',
  'Expired',
  'Rescinded',
  'Suspended',
  'Activated',
  'Ended',
] as const;
export const FlightRequestStatus = Type.Union(FLIGHT_REQUEST_STATUSES.map((status) => Type.Literal(status)));
export type FlightRequestStatus = (typeof FLIGHT_REQUEST_STATUSES)[number];
export type FlightRequestStatusType = Static<typeof FlightRequestStatus>;
