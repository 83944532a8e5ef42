import { Schema, type Connection, type QueryFilter, type Model } from 'mongoose';
import { outboxSchemaFields, skipFor, withOutbox, type OutboxFields, type PageRequest } from '@dfc/kit';
import type { ApiKeyRole, ApiKeyStatus, EventEnvelope } from '@dfc/contracts';

/** An API key as stored: never the key itself, only its SHA-256 digest. `_id` is the key's public id. */
export interface ApiKeyDocument extends OutboxFields {
  _id: string;
  digest: string;
  role: ApiKeyRole;
  operator_uuid: string | null;
  authority: string | null;
  name: string | null;
  last_four: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export type NewApiKey = Omit<ApiKeyDocument, keyof OutboxFields | 'created_at' | 'last_used_at' | 'revoked_at'>;

export interface ApiKeyFilter {
  status?: ApiKeyStatus;
  role?: ApiKeyRole;
  operator_uuid?: string;
  authority?: string;
}

const nullableString = { type: String, default: null };
const nullableDate = { type: Date, default: null };

const apiKeySchema = new Schema<ApiKeyDocument>(
  {
    _id: { type: String, required: true },
    digest: { type: String, required: true },
    role: { type: String, required: true, enum: ['operator', 'reviewer', 'admin'] },
    operator_uuid: nullableString,
    authority: nullableString,
    name: nullableString,
    last_four: { type: String, required: true },
    created_at: { type: Date, required: true },
    last_used_at: nullableDate,
    revoked_at: nullableDate,
    ...outboxSchemaFields,
  },
  { collection: 'api_keys', versionKey: false, timestamps: false },
);
// The lists: an operator's keys, and the admin's list filtered by role; both newest first.
apiKeySchema.index({ operator_uuid: 1, created_at: -1 });
apiKeySchema.index({ role: 1, created_at: -1 });
apiKeySchema.index({ created_at: -1 });

/** Fields the hot path (verification) reads; the digest is compared, never returned to clients. */
const VERIFY_PROJECTION = { digest: 1, role: 1, operator_uuid: 1, authority: 1, last_used_at: 1, revoked_at: 1 } as const;

export class ApiKeyStore {
  readonly model: Model<ApiKeyDocument>;

  constructor(connection: Connection) {
    this.model = (connection.models['ApiKey'] as Model<ApiKeyDocument> | undefined) ?? connection.model('ApiKey', apiKeySchema);
  }

  async insert(key: NewApiKey, now: Date): Promise<ApiKeyDocument> {
    const document: ApiKeyDocument = { ...key, created_at: now, last_used_at: null, revoked_at: null, outbox: [] };
    await this.model.create(document);
    return document;
  }

  findById(id: string): Promise<ApiKeyDocument | null> {
    return this.model.findById(id).lean<ApiKeyDocument>().exec();
  }

  findForVerification(id: string): Promise<Pick<ApiKeyDocument, '_id' | keyof typeof VERIFY_PROJECTION> | null> {
    return this.model.findById(id, VERIFY_PROJECTION).lean<Pick<ApiKeyDocument, '_id' | keyof typeof VERIFY_PROJECTION>>().exec();
  }

  async list(filter: ApiKeyFilter, page: PageRequest): Promise<{ items: ApiKeyDocument[]; total: number }> {
    const query = toQuery(filter);
    const [items, total] = await Promise.all([
      this.model
        .find(query, { outbox: 0 })
        .sort({ created_at: -1, _id: -1 })
        .skip(skipFor(page))
        .limit(page.per_page)
        .lean<ApiKeyDocument[]>()
        .exec(),
      this.model.countDocuments(query).exec(),
    ]);
    return { items, total };
  }

  /** Marks the key revoked with its event; null when it was already revoked (or is gone). */
  revoke(id: string, events: EventEnvelope[], now: Date): Promise<ApiKeyDocument | null> {
    return this.model
      .findOneAndUpdate({ _id: id, revoked_at: null }, withOutbox({ $set: { revoked_at: now } }, events), {
        returnDocument: 'after',
      })
      .lean<ApiKeyDocument>()
      .exec();
  }

  /** Records use, unless a recent use is already recorded (`staleBefore`): one write a minute at most. */
  async touch(id: string, now: Date, staleBefore: Date): Promise<void> {
    await this.model
      .updateOne(
        { _id: id, $or: [{ last_used_at: null }, { last_used_at: { $lt: staleBefore } }] },
        { $set: { last_used_at: now } },
      )
      .exec();
  }

  /**
   * The configured admin key: created on first start; on later starts its
   * digest follows the configured value (a changed secret with the same id).
   * A revocation is kept: a restart must not revive a key an admin revoked.
   */
  async upsertAdmin(key: Pick<ApiKeyDocument, '_id' | 'digest' | 'last_four' | 'name'>, now: Date): Promise<void> {
    await this.model
      .updateOne(
        { _id: key._id },
        {
          $set: { digest: key.digest, last_four: key.last_four, role: 'admin', operator_uuid: null, authority: null },
          $setOnInsert: { name: key.name, created_at: now, last_used_at: null, revoked_at: null, outbox: [] },
        },
        { upsert: true },
      )
      .exec();
  }
}

function toQuery(filter: ApiKeyFilter): QueryFilter<ApiKeyDocument> {
  const query: QueryFilter<ApiKeyDocument> = {};
  if (filter.role) query.role = filter.role;
  if (filter.operator_uuid) query.operator_uuid = filter.operator_uuid;
  if (filter.authority) query.authority = filter.authority;
  if (filter.status === 'active') query.revoked_at = null;
  if (filter.status === 'revoked') query.revoked_at = { $ne: null };
  return query;
}

