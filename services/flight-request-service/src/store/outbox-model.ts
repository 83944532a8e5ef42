import type { Model } from 'mongoose';
import type { OutboxFields } from '@dfc/kit/broker';

/** How the kit's OutboxRelay sees a model: only its outbox fields matter to it. */
export type OutboxModel = Model<OutboxFields & { _id: unknown }>;

export function asOutboxModel<T extends OutboxFields>(model: Model<T>): OutboxModel {
  // Mongoose's Model generics are invariant; the relay touches only the outbox fields every such model has.
  return model as unknown as OutboxModel;
}
