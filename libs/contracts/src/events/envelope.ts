import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Uuid } from '../schema-helpers.js';

/**
 * Every domain event travels in this envelope. `id` is unique per event and is
 * what consumers de-duplicate on; `request_id` carries the originating HTTP
 * request's id into the consumers' logs.
 */
export const EventEnvelope = Type.Object(
  {
    id: Uuid,
    type: Type.String(),
    occurred_at: Type.String({ format: 'date-time' }),
    operator_uuid: Nullable(Type.String({ format: 'uuid' })),
    request_id: Type.Optional(Type.String()),
    data: Type.Unknown(),
  },
  { $id: 'EventEnvelope' },
);
export type EventEnvelope<D = unknown> = Omit<Static<typeof EventEnvelope>, 'data'> & { data: D };
