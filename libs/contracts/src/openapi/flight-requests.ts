/**
 * Placeholder created by the gateway engineer so the OpenAPI document can be
 * assembled; the flight-request-service owner replaces it with the path items
 * of the flight request, zone and review routes.
 */
export const flightRequestPaths: Record<string, unknown> = {};
