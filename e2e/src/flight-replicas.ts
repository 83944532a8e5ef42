import { GatewayClient, type RegisteredOperator } from './client.js';
import { startSystem, type System } from './system.js';

const HOUR = 3_600_000;

/**
 * The system the airspace stories run on: two flight-request-service processes behind the
 * gateway (a round-robin balancer, as a Service spreads pods) and operator-service, with the
 * public per-address limit raised so that a story can register its many operators at once.
 */
export async function startFlightReplicas(): Promise<{ system: System; client: GatewayClient }> {
  const system = await startSystem({
    services: ['operator-service', 'flight-request-service', 'gateway'],
    replicas: { 'flight-request-service': 2 },
    env: { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '10000' },
  });
  return { system, client: new GatewayClient(system.gatewayUrl) };
}

/** `count` operators registered at once, each with a key; `overrides` go into each registration. */
export function registerOperators(client: GatewayClient, count: number, overrides: Record<string, unknown> = {}): Promise<RegisteredOperator[]> {
  return Promise.all(Array.from({ length: count }, () => client.registerOperatorWithKey({ timezone: 'Europe/Amsterdam', ...overrides })));
}

/** The instant `hours` from now, on a whole second (the API takes whole seconds). */
export function hoursAhead(hours: number): Date {
  return new Date(Math.ceil((Date.now() + hours * HOUR) / 1000) * 1000);
}
