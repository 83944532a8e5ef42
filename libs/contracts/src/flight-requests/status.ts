import { Type, type Static } from '@sinclair/typebox';

/**
 * PRODUCT.md "States"; Rescinded: an approval withdrawn because a new restriction now forbids the flight;
 * Suspended: an approval put back under an authority's review by a new authorisation zone over it.
 */
export const FLIGHT_REQUEST_STATUSES = ['Pending', 'Approved', 'Rejected', 'Cancelled', 'Expired', 'Rescinded', 'Suspended'] as const;
export const FlightRequestStatus = Type.Union(FLIGHT_REQUEST_STATUSES.map((status) => Type.Literal(status)));
export type FlightRequestStatus = (typeof FLIGHT_REQUEST_STATUSES)[number];
export type FlightRequestStatusType = Static<typeof FlightRequestStatus>;
