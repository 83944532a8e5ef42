import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The domain metrics of the service (HTTP and relay metrics come from the kit). */
export interface FlightRequestMetrics {
  requestsByStatus: Counter<'status'>;
  screeningSeconds: Histogram;
  zonesLoaded: Gauge;
}

export function createFlightRequestMetrics(registry: Registry): FlightRequestMetrics {
  return {
    requestsByStatus: new Counter({
      name: 'flight_requests_total',
      help: 'Flight requests entering each status (submission outcome, decisions, cancellations, expiry)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    screeningSeconds: new Histogram({
      name: 'flight_request_screening_duration_seconds',
      help: 'Time spent screening a submission against zones and approved flights',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    zonesLoaded: new Gauge({
      name: 'geo_zones_loaded',
      help: 'Geo-zones held in the in-memory spatial index',
      registers: [registry],
    }),
  };
}
