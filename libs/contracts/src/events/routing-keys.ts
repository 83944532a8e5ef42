/**
 * Topic exchange routing keys of the events one service publishes for others;
 * the envelope's `type` equals its routing key. A service's internal events
 * have their keys in that service (`src/messaging.ts`).
 */
export const RoutingKeys = {
  operatorRegistered: 'operator.registered',
  operatorUpdated: 'operator.updated',
  operatorPasswordChanged: 'operator.password_changed',
  operatorCredentialsChanged: 'operator.credentials_changed',
  apiKeyRevoked: 'api_key.revoked',
  flightRequestSubmitted: 'flight_request.submitted',
  flightRequestStatusChanged: 'flight_request.status_changed',
  flightRequestCascadeRejection: 'flight_request.cascade_rejection',
  flightRequestReviewCompleted: 'flight_request.review_completed',
  flightRequestRestrictionNotice: 'flight_request.restriction_notice',
} as const;

export type RoutingKey = (typeof RoutingKeys)[keyof typeof RoutingKeys];

export const DEFAULT_EXCHANGE = 'dfc.events';
