import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields, type OutboxFields } from '@dfc/kit/broker';

/**
 * One accepted change of a flight request: the fields it sets and the events
 * it causes. FerretDB applies a conditional update as read-then-write without
 * isolation, so two writers can both "win" an `updateOne({ version })`; an
 * insert against a unique index, however, has exactly one winner. Each change
 * is therefore first inserted here under `<uuid>:<from_version>`: the insert that
 * lands is the change that happens, and it carries its events (the outbox), so
 * the state change and its events are still written together in one atomic
 * write. Applying it to the request document follows; a crash in between is
 * repaired by rolling the change forward. The relay drains the outbox of these
 * records only, so it never rewrites a request document concurrently with a
 * change.
 */
export interface StoredChange extends OutboxFields {
  /** `<uuid>:<from_version>`: the `_id` index is the arbiter (and FerretDB answers `_id` lookups without a scan). */
  _id: string;
  uuid: string;
  /** The version of the request the change was decided on; 0 for the submission itself. */
  from_version: number;
  /** The fields to set (for a submission: the whole new document, dropped once applied). */
  set: Record<string, unknown> | null;
  applied: boolean;
  created_at: Date;
}

export type ChangeModel = Model<StoredChange>;

const changeSchema = new Schema<StoredChange>(
  {
    _id: { type: String, required: true },
    uuid: { type: String, required: true },
    from_version: { type: Number, required: true },
    set: { type: Schema.Types.Mixed, default: null },
    applied: { type: Boolean, default: false },
    created_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'flight_request_changes', versionKey: false, minimize: false },
);
changeSchema.index({ applied: 1, created_at: 1 });

export function changeId(uuid: string, fromVersion: number): string {
  return `${uuid}:${fromVersion}`;
}

export function changeModel(connection: Connection): ChangeModel {
  return connection.models['FlightRequestChange'] ?? connection.model<StoredChange>('FlightRequestChange', changeSchema);
}
