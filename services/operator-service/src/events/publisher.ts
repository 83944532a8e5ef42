import type { Model } from 'mongoose';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { OutboxRelay, type Broker, type OutboxFields, type OutboxModel } from '@dfc/kit/broker';
import type { Stores } from '../store/index.js';

/**
 * The relay's models are typed with an `unknown` id; ours have string ids.
 * The relay only reads `_id`, `outbox` and `outbox_pending_since`, which both share.
 */
function asOutboxModel<T extends OutboxFields>(model: Model<T>): OutboxModel {
  return model as unknown as OutboxModel;
}

/**
 * Publishes what use cases wrote into documents' outboxes: right after the
 * write (fast path), and by the relay's sweep for anything left behind by a
 * crash or a broker outage.
 *
 * Use cases await the fast path before answering. It never throws (a failed
 * publish is left to the sweep), and it means that when a client has its
 * answer the event is out (a revoked key is already being dropped by the
 * gateways) and the relay is done writing to the document, so the client's
 * next change of it cannot race with the relay's clean-up.
 */
export class EventPublisher {
  readonly relay: OutboxRelay;

  constructor(
    private readonly stores: Stores,
    broker: Broker,
    log: Logger,
    registry: Registry,
  ) {
    this.relay = new OutboxRelay(broker, log, { registry });
    this.relay.watch(asOutboxModel(stores.operators.model));
    this.relay.watch(asOutboxModel(stores.apiKeys.model));
  }

  operatorChanged(uuid: string): Promise<void> {
    return this.relay.notify(asOutboxModel(this.stores.operators.model), uuid);
  }

  apiKeyChanged(id: string): Promise<void> {
    return this.relay.notify(asOutboxModel(this.stores.apiKeys.model), id);
  }
}
