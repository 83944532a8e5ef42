/** Topic exchange routing keys; the envelope's `type` equals its routing key. */
export const RoutingKeys = {
  operatorRegistered: 'operator.registered',
  operatorUpdated: 'operator.updated',
  apiKeyRevoked: 'api_key.revoked',
  flightRequestSubmitted: 'flight_request.submitted',
  flightRequestStatusChanged: 'flight_request.status_changed',
  flightRequestCascadeRejection: 'flight_request.cascade_rejection',
  flightRequestReviewCompleted: 'flight_request.review_completed',
  /** Internal to the flight-request-service: the review items of one request, for its review queue projection. */
  flightRequestReviewItemsChanged: 'flight_request.review_items_changed',
  zoneChanged: 'zone.changed',
} as const;

export type RoutingKey = (typeof RoutingKeys)[keyof typeof RoutingKeys];

export const DEFAULT_EXCHANGE = 'dfc.events';
