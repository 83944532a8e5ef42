import { Type, type Static } from '@sinclair/typebox';

/** PRODUCT.md "States", and Rescinded: an approval withdrawn because a new restriction now forbids the flight. */
export const FLIGHT_REQUEST_STATUSES = ['Pending', 'Approved', 'Rejected', 'Cancelled', 'Expired', 'Rescinded'] as const;
export const FlightRequestStatus = Type.Union(FLIGHT_REQUEST_STATUSES.map((status) => Type.Literal(status)));
export type FlightRequestStatus = (typeof FLIGHT_REQUEST_STATUSES)[number];
export type FlightRequestStatusType = Static<typeof FlightRequestStatus>;
