import { LRUCache } from 'lru-cache';
import { type PageRequest, skipFor } from '@dfc/kit/pagination';
import { AggregateStore, WITHOUT_OUTBOX, type Decide, type OutboxRelay } from '@dfc/kit/outbox';
import { countMatching, driverCollection, GroupedReads } from '@dfc/kit/db';
import type { SubscribableWebhookKind } from '@dfc/contracts';
import { scopeFilter, type OwnerScope } from '../domain/owner-scope.js';
import type { WebhookEndpoint, WebhookEndpointModel } from './endpoint-model.js';

/**
 * How old the copy of an endpoint an attempt works from may be. Every attempt
 * needs its endpoint (URL, secrets, enabled, cool-off); reading it each time
 * reads the same document again and again for a busy endpoint. A change made
 * through this replica replaces its copy at once; one made by another replica
 * is seen within this time (docs/architecture.md, "Webhook deliveries: who owns what").
 */
export const ENDPOINT_COPY_MAX_AGE_MS = 1000;
const ENDPOINT_COPIES = 10_000;

/** Webhook endpoints: written only through the aggregate's write path; every read for a caller goes through its scope. */
export class EndpointStore {
  private readonly aggregate: AggregateStore<WebhookEndpoint>;
  private readonly copies = new LRUCache<string, WebhookEndpoint>({ max: ENDPOINT_COPIES, ttl: ENDPOINT_COPY_MAX_AGE_MS });
  /** Subscribers by operator and event kind: the events of one operator fanned out at once (a cascade) share reads. */
  private readonly subscribers = new GroupedReads<readonly WebhookEndpoint[]>();

  constructor(
    private readonly model: WebhookEndpointModel,
    relay: OutboxRelay,
  ) {
    this.aggregate = new AggregateStore(model, relay, { notFoundMessage: 'Not found.' });
  }

  async insert(endpoint: Omit<WebhookEndpoint, 'version'>): Promise<WebhookEndpoint> {
    return this.remember(await this.aggregate.insert(endpoint));
  }

  /** read → decide → one conditional write (see AggregateStore). */
  async change(id: string, decide: Decide<WebhookEndpoint>): Promise<WebhookEndpoint> {
    return this.remember(await this.aggregate.change(id, decide));
  }

  /** The endpoint as an attempt sees it: a copy at most ENDPOINT_COPY_MAX_AGE_MS old. */
  async findForAttempt(id: string): Promise<WebhookEndpoint | null> {
    const copy = this.copies.get(id);
    if (copy) return copy;
    const endpoint = await this.aggregate.find(id);
    return endpoint ? this.remember(endpoint) : null;
  }

  async findInScope(id: string, scope: OwnerScope): Promise<WebhookEndpoint | null> {
    const endpoint = await this.aggregate.find(id);
    return endpoint && (scope.operatorUuid === null || endpoint.operator_uuid === scope.operatorUuid) ? endpoint : null;
  }

  async list(scope: OwnerScope, page: PageRequest): Promise<{ items: WebhookEndpoint[]; total: number }> {
    const filter = scopeFilter(scope);
    const [items, total] = await Promise.all([
      this.model
        .find(filter, WITHOUT_OUTBOX)
        .sort({ created_at: -1, _id: -1 })
        .skip(skipFor(page))
        .limit(page.per_page)
        .lean<WebhookEndpoint[]>()
        .exec(),
      countMatching(this.model, filter),
    ]);
    return { items, total };
  }

  /** How many endpoints the operator holds, counted on the database: the cap holds across replicas. */
  async countOwnedBy(operatorUuid: string): Promise<number> {
    return countMatching(this.model, { operator_uuid: operatorUuid });
  }

  async remove(id: string): Promise<boolean> {
    this.copies.delete(id);
    const result = await this.model.deleteOne({ _id: id }).exec();
    return result.deletedCount === 1;
  }

  /**
   * The enabled endpoints of one operator that subscribed to `kind`, as a read started after the
   * call finds them (an endpoint created before the event is never missed); callers asking for the
   * same at the same moment share that read (GroupedReads), hence one read-only list for all of them.
   * Every event fanned out starts with this read: the driver's, since its filter holds only strings and a
   * boolean, which mongoose's query would cast to themselves.
   */
  findSubscribers(operatorUuid: string, kind: SubscribableWebhookKind): Promise<readonly WebhookEndpoint[]> {
    return this.subscribers.get(`${operatorUuid} ${kind}`, () =>
      driverCollection(this.model).find({ operator_uuid: operatorUuid, enabled: true, events: kind }, { projection: WITHOUT_OUTBOX }).toArray(),
    );
  }

  /** Every enabled endpoint of one operator, whatever it subscribed to (the account's security notice); shares reads like `findSubscribers`. */
  findEnabled(operatorUuid: string): Promise<readonly WebhookEndpoint[]> {
    return this.subscribers.get(`${operatorUuid} *`, () =>
      driverCollection(this.model).find({ operator_uuid: operatorUuid, enabled: true }, { projection: WITHOUT_OUTBOX }).toArray(),
    );
  }

  private remember(endpoint: WebhookEndpoint): WebhookEndpoint {
    this.copies.set(endpoint._id, endpoint);
    return endpoint;
  }

  countCooling(now: Date): Promise<number> {
    return this.model.countDocuments({ cooling_until: { $gt: now } }).exec();
  }
}
