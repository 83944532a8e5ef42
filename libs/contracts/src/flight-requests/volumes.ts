import { Type, type Static } from '@sinclair/typebox';
import { Double, Int32, UtcTimestamp } from '../schema-helpers.js';

/** ASTM F3548-21's `Altitude` references: above the ground, above mean sea level, above the WGS-84 ellipsoid. */
export const ALTITUDE_REFERENCES = ['AGL', 'AMSL', 'WGS84'] as const;
export type AltitudeReference = (typeof ALTITUDE_REFERENCES)[number];
export const ALTITUDE_UNITS = ['m', 'ft'] as const;
export type AltitudeUnits = (typeof ALTITUDE_UNITS)[number];

/** One limit of a volume's band, as F3548's `Altitude`: `{"value": 80, "reference": "AGL", "units": "m"}`. */
export const Altitude = Type.Object(
  {
    value: Double({ examples: [80] }),
    reference: Type.Unsafe<AltitudeReference>({
      type: 'string',
      enum: [...ALTITUDE_REFERENCES],
      'x-error-message': `The :attribute field must be one of: ${ALTITUDE_REFERENCES.join(', ')}.`,
    }),
    units: Type.Unsafe<AltitudeUnits>({
      type: 'string',
      enum: [...ALTITUDE_UNITS],
      'x-error-message': `The :attribute field must be one of: ${ALTITUDE_UNITS.join(', ')}.`,
    }),
  },
  { additionalProperties: false },
);
export type Altitude = Static<typeof Altitude>;

/** A volume as the record shows it: its band and window, and which features of `flight_area` are its area. */
export const FlightVolumeRecord = Type.Object(
  {
    start_time: UtcTimestamp,
    end_time: UtcTimestamp,
    altitude_lower: Altitude,
    altitude_upper: Altitude,
    bbox: Type.Array(Double(), { minItems: 4, maxItems: 4, description: "[west, south, east, north] of the volume's area" }),
    features: Type.Array(Int32({ minimum: 0 }), {
      minItems: 1,
      description: 'indexes in flight_area.features of the volume’s area (a request without volumes: all of them)',
    }),
  },
  { $id: 'FlightVolumeRecord' },
);
export type FlightVolumeRecord = Static<typeof FlightVolumeRecord>;
