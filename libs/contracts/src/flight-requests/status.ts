import { Type, type Static } from '@sinclair/typebox';

/** PRODUCT.md "States". */
export const FLIGHT_REQUEST_STATUSES = ['Pending', 'Approved', 'Rejected', 'Cancelled', 'Expired'] as const;
export const FlightRequestStatus = Type.Union(FLIGHT_REQUEST_STATUSES.map((status) => Type.Literal(status)));
export type FlightRequestStatus = (typeof FLIGHT_REQUEST_STATUSES)[number];
export type FlightRequestStatusType = Static<typeof FlightRequestStatus>;
