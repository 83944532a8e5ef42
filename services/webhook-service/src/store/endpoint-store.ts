import { AggregateStore, type Decide, countMatching } from '@dfc/kit/db';
import type { OutboxRelay } from '@dfc/kit/broker';
import type { PageRequest } from '@dfc/kit/http';
import { skipFor } from '@dfc/kit/http';
import type { SubscribableWebhookKind } from '@dfc/contracts';
import { scopeFilter, type OwnerScope } from '../domain/owner-scope.js';
import type { WebhookEndpoint, WebhookEndpointModel } from './endpoint-model.js';

/** Webhook endpoints: written only through the aggregate's write path; every read for a caller goes through its scope. */
export class EndpointStore {
  private readonly aggregate: AggregateStore<WebhookEndpoint>;

  constructor(
    private readonly model: WebhookEndpointModel,
    relay: OutboxRelay,
  ) {
    this.aggregate = new AggregateStore(model, relay, { notFoundMessage: 'Not found.' });
  }

  insert(endpoint: Omit<WebhookEndpoint, 'version'>): Promise<WebhookEndpoint> {
    return this.aggregate.insert(endpoint);
  }

  /** read → decide → one conditional write (see AggregateStore). */
  change(id: string, decide: Decide<WebhookEndpoint>): Promise<WebhookEndpoint> {
    return this.aggregate.change(id, decide);
  }

  findById(id: string): Promise<WebhookEndpoint | null> {
    return this.aggregate.find(id);
  }

  async findInScope(id: string, scope: OwnerScope): Promise<WebhookEndpoint | null> {
    const endpoint = await this.aggregate.find(id);
    return endpoint && (scope.operatorUuid === null || endpoint.operator_uuid === scope.operatorUuid) ? endpoint : null;
  }

  async list(scope: OwnerScope, page: PageRequest): Promise<{ items: WebhookEndpoint[]; total: number }> {
    const filter = scopeFilter(scope);
    const [items, total] = await Promise.all([
      this.model.find(filter, WITHOUT_OUTBOX).sort({ created_at: -1, _id: -1 }).skip(skipFor(page)).limit(page.per_page).lean<WebhookEndpoint[]>().exec(),
      countMatching(this.model, filter),
    ]);
    return { items, total };
  }

  async remove(id: string): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id }).exec();
    return result.deletedCount === 1;
  }

  /** The enabled endpoints of one operator that subscribed to `kind`. */
  findSubscribers(operatorUuid: string, kind: SubscribableWebhookKind): Promise<WebhookEndpoint[]> {
    return this.model.find({ operator_uuid: operatorUuid, enabled: true, events: kind }, WITHOUT_OUTBOX).lean<WebhookEndpoint[]>().exec();
  }

  countCooling(now: Date): Promise<number> {
    return this.model.countDocuments({ cooling_until: { $gt: now } }).exec();
  }
}

const WITHOUT_OUTBOX = { outbox: 0, outbox_pending_since: 0 } as const;
