import type { Model } from 'mongoose';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { OutboxRelay, type Broker, type OutboxFields } from '@dfc/kit';
import type { Stores } from '../store/index.js';

type OutboxModel = ConstructorParameters<typeof OutboxRelay>[0][number];

/**
 * The relay's models are typed with an `unknown` id; ours have string ids.
 * The relay only reads `_id`, `outbox` and `outbox_pending_since`, which both share.
 */
function asOutboxModel<T extends OutboxFields>(model: Model<T>): OutboxModel {
  return model as unknown as OutboxModel;
}

/**
 * Publishes what use cases wrote into documents' outboxes: at once after the
 * write (fast path), and by the relay's sweep for anything left behind by a
 * crash or a broker outage.
 */
export class EventPublisher {
  readonly relay: OutboxRelay;

  constructor(
    private readonly stores: Stores,
    broker: Broker,
    log: Logger,
    registry: Registry,
  ) {
    this.relay = new OutboxRelay([asOutboxModel(stores.operators.model), asOutboxModel(stores.apiKeys.model)], broker, log, {
      registry,
    });
  }

  /** Fire and forget: the relay logs failures and the sweep retries them. */
  operatorChanged(uuid: string): void {
    void this.relay.notify(asOutboxModel(this.stores.operators.model), uuid);
  }

  apiKeyChanged(id: string): void {
    void this.relay.notify(asOutboxModel(this.stores.apiKeys.model), id);
  }
}
