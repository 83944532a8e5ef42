import type { Middleware } from 'koa';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * How often the event loop's delay is sampled for `nodejs_eventloop_lag_*`: a timer of its own that wakes the
 * process even when nothing else happens. prom-client's 10 ms woke every idle service a hundred times a second,
 * CPU spent with nothing to serve. At 100 ms a delay of 100 ms or more is still seen every time, a shorter one in
 * proportion to its length.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * One registry per app (not prom-client's global one), so several services can
 * run in one test process without their metrics colliding.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/** HTTP latency by method, matched route (never the raw path: bounded cardinality) and status. */
export function httpMetrics(registry: Registry): Middleware {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return async (ctx, next) => {
    const end = duration.startTimer();
    try {
      await next();
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      end({ method: ctx.method, route: String(route), status: String(ctx.status) });
    }
  };
}
