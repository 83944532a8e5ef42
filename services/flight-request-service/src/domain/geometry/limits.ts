/** The bounds a flight area (and a zone geometry) is checked against: features.ts and flight-area.ts both read them. */

export interface FlightAreaLimits {
  maxFeatures: number;
  maxPositions: number;
  maxAreaM2: number;
  maxRadiusM: number;
}

/** PRODUCT.md: 1..50 features, 10,000 positions, 1,000 km², circles up to 5,000 m. */
export const DEFAULT_FLIGHT_AREA_LIMITS: FlightAreaLimits = {
  maxFeatures: 50,
  maxPositions: 10_000,
  maxAreaM2: 1_000_000_000,
  maxRadiusM: 5000,
};

/** A zone may be a detailed boundary, but still bounded so hostile input stays cheap. */
export const MAX_ZONE_POSITIONS = 100_000;
