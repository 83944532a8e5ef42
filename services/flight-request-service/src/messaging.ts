/**
 * The broker names this service owns, in one place: the routing keys of the
 * events only it consumes (the published ones are `RoutingKeys` in
 * @dfc/contracts) and the queues it consumes from (names before the test
 * runs' exchange prefix, `queueName`).
 */
export const InternalRoutingKeys = {
  /** The review items of one request, for its review queue projection. */
  reviewItemsChanged: 'flight_request.review_items_changed',
  /** One zone to reload into every replica's spatial index, and to rescreen requests against. */
  zoneChanged: 'zone.changed',
} as const;

export const Queues = {
  /** The operator projection's durable queue. */
  operators: 'flight-request-service.operators',
  /** The review queue projection's durable queue. */
  reviewQueue: 'flight-request-service.review-queue',
  /** Each replica's broadcast queue of zone changes (exclusive, never prefixed). */
  zones: 'flight-request-service.zones',
  /** The durable queue the replicas share: each zone change is rescreened by one of them. */
  zoneRescreening: 'flight-request-service.zone-rescreening',
  /** The durable queue the replicas share: a flight that gave its airspace up has the requests waiting on it examined again. */
  reexamination: 'flight-request-service.reexamination',
} as const;
