import type { PageRequest } from '@dfc/kit/http';
import { skipFor } from '@dfc/kit/http';
import type { SubscribableWebhookKind } from '@dfc/contracts';
import { scopeFilter, type OwnerScope } from '../domain/owner-scope.js';
import type { StoredSecret, WebhookEndpoint, WebhookEndpointModel } from './endpoint-model.js';

export type EndpointChanges = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'enabled' | 'disabled_reason' | 'failing_since'>>;

/** Queries on webhook endpoints; every read on behalf of a caller goes through its scope. */
export class EndpointStore {
  constructor(private readonly model: WebhookEndpointModel) {}

  async insert(endpoint: WebhookEndpoint): Promise<void> {
    await this.model.create(endpoint);
  }

  findById(id: string): Promise<WebhookEndpoint | null> {
    return this.model.findById(id).lean<WebhookEndpoint>().exec();
  }

  findInScope(id: string, scope: OwnerScope): Promise<WebhookEndpoint | null> {
    return this.model.findOne({ _id: id, ...scopeFilter(scope) }).lean<WebhookEndpoint>().exec();
  }

  async list(scope: OwnerScope, page: PageRequest): Promise<{ items: WebhookEndpoint[]; total: number }> {
    const filter = scopeFilter(scope);
    const [items, total] = await Promise.all([
      this.model.find(filter).sort({ created_at: -1, _id: -1 }).skip(skipFor(page)).limit(page.per_page).lean<WebhookEndpoint[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items, total };
  }

  update(id: string, scope: OwnerScope, changes: EndpointChanges, now: Date): Promise<WebhookEndpoint | null> {
    return this.model
      .findOneAndUpdate({ _id: id, ...scopeFilter(scope) }, { $set: { ...changes, updated_at: now } }, { returnDocument: 'after' })
      .lean<WebhookEndpoint>()
      .exec();
  }

  /** Optimistic: only if nobody changed the endpoint since it was read (`updated_at` as read). */
  replaceSecrets(id: string, readUpdatedAt: Date, secrets: StoredSecret[], now: Date): Promise<WebhookEndpoint | null> {
    return this.model
      .findOneAndUpdate({ _id: id, updated_at: readUpdatedAt }, { $set: { secrets, updated_at: now } }, { returnDocument: 'after' })
      .lean<WebhookEndpoint>()
      .exec();
  }

  async remove(id: string, scope: OwnerScope): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id, ...scopeFilter(scope) }).exec();
    return result.deletedCount === 1;
  }

  /** The enabled endpoints of one operator that subscribed to `kind`. */
  findSubscribers(operatorUuid: string, kind: SubscribableWebhookKind): Promise<WebhookEndpoint[]> {
    return this.model.find({ operator_uuid: operatorUuid, enabled: true, events: kind }).lean<WebhookEndpoint[]>().exec();
  }

  async markHealthy(id: string): Promise<void> {
    await this.model.updateOne({ _id: id, failing_since: { $ne: null } }, { $set: { failing_since: null } }).exec();
  }

  /** Records the start of a failing streak, if none is running. */
  async markFailing(id: string, now: Date): Promise<void> {
    await this.model.updateOne({ _id: id, failing_since: null }, { $set: { failing_since: now } }).exec();
  }

  /**
   * Disables an enabled endpoint; with `failingSince`, only if that failing
   * streak is still the current one (a success in between cleared it).
   */
  async disable(id: string, reason: string, now: Date, failingSince?: Date): Promise<boolean> {
    const streak = failingSince ? { failing_since: failingSince } : {};
    const result = await this.model
      .updateOne({ _id: id, enabled: true, ...streak }, { $set: { enabled: false, disabled_reason: reason, updated_at: now } })
      .exec();
    return result.modifiedCount === 1;
  }
}
