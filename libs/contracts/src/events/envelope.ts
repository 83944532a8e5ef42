import { randomUUID } from 'node:crypto';
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

/** A new event in its envelope: a fresh id (what consumers de-duplicate on) and the time it occurred. */
export function newEvent<D>(type: string, operatorUuid: string | null, data: D, requestId?: string): EventEnvelope<D> {
  return {
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    operator_uuid: operatorUuid,
    ...(requestId ? { request_id: requestId } : {}),
    data,
  };
}
