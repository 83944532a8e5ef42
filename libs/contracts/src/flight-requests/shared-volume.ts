import { Type, type Static } from '@sinclair/typebox';
import { Double, Int32, Timestamp } from '../schema-helpers.js';

/** The airspace two flights of different operators would share: nothing identifies the other flight or its operator. */
export const SharedVolume = Type.Object({
  start_time: Timestamp,
  end_time: Timestamp,
  lower_altitude_m: Int32({ minimum: 0, description: 'metres above ground' }),
  upper_altitude_m: Int32({ minimum: 0, description: 'metres above ground' }),
  bbox: Type.Array(Double(), { minItems: 4, maxItems: 4, description: '[west, south, east, north] of the shared area' }),
});
export type SharedVolume = Static<typeof SharedVolume>;
