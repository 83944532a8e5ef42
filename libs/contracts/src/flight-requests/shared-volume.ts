import { Type, type Static } from '@sinclair/typebox';
import { Double, Int32, Timestamp } from '../schema-helpers.js';

/** The airspace two flights of different operators would share: nothing identifies the other flight or its operator. */
export const SharedVolume = Type.Object({
  start_time: Timestamp,
  end_time: Timestamp,
  lower_altitude_m: Int32({ description: 'metres above ground, or in altitude_reference when it is given (rounded down)' }),
  upper_altitude_m: Int32({ description: 'metres above ground, or in altitude_reference when it is given (rounded up)' }),
  altitude_reference: Type.Optional(
    Type.Unsafe<'AMSL' | 'WGS84'>({
      type: 'string',
      enum: ['AMSL', 'WGS84'],
      description:
        'Set when the shared band is not above ground: both bands in WGS-84 heights, or bands in different references compared ' +
        'above mean sea level (docs/architecture.md, "Deconfliction").',
    }),
  ),
  bbox: Type.Array(Double(), { minItems: 4, maxItems: 4, description: '[west, south, east, north] of the shared area' }),
});
export type SharedVolume = Static<typeof SharedVolume>;
