import { Schema, type Connection, type QueryFilter, type Model } from 'mongoose';
import { outboxSchemaFields, withOutbox, type OutboxFields } from '@dfc/kit/broker';
import { skipFor, type PageRequest } from '@dfc/kit/http';
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
  revoked_at: Date | null;
}

/**
 * When a key was last used lives in a document of its own (`api_key_usage`),
 * written from the verification hot path. Kept apart from the key so that
 * this frequent write can never race with, and undo, a revocation (FerretDB
 * 1.x applies concurrent updates of one document as whole-document writes).
 */
interface ApiKeyUsageDocument {
  _id: string;
  last_used_at: Date;
}

/** A key with its last use, as listed. */
export type ApiKeyView = ApiKeyDocument & { last_used_at: Date | null };

export type NewApiKey = Omit<ApiKeyDocument, keyof OutboxFields | 'created_at' | 'revoked_at'>;

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
    revoked_at: nullableDate,
    ...outboxSchemaFields,
  },
  { collection: 'api_keys', versionKey: false, timestamps: false },
);
// The lists: an operator's keys, and the admin's list filtered by role; both newest first.
apiKeySchema.index({ operator_uuid: 1, created_at: -1 });
apiKeySchema.index({ role: 1, created_at: -1 });
apiKeySchema.index({ created_at: -1 });

const apiKeyUsageSchema = new Schema<ApiKeyUsageDocument>(
  { _id: { type: String, required: true }, last_used_at: { type: Date, required: true } },
  { collection: 'api_key_usage', versionKey: false, timestamps: false },
);

/** Fields the hot path (verification) reads; the digest is compared, never returned to clients. */
const VERIFY_PROJECTION = { digest: 1, role: 1, operator_uuid: 1, authority: 1, revoked_at: 1 } as const;
export type KeyForVerification = Pick<ApiKeyDocument, '_id' | keyof typeof VERIFY_PROJECTION>;

/** Bounds the in-memory "last recorded use" map; older entries are dropped first when it is full. */
const MAX_TRACKED_USES = 10_000;

export class ApiKeyStore {
  readonly model: Model<ApiKeyDocument>;
  private readonly usage: Model<ApiKeyUsageDocument>;
  /** When this replica last wrote each key's use: the write happens at most once per resolution. */
  private readonly recordedUses = new Map<string, number>();

  constructor(connection: Connection) {
    this.model = (connection.models['ApiKey'] as Model<ApiKeyDocument> | undefined) ?? connection.model<ApiKeyDocument>('ApiKey', apiKeySchema);
    this.usage =
      (connection.models['ApiKeyUsage'] as Model<ApiKeyUsageDocument> | undefined) ??
      connection.model<ApiKeyUsageDocument>('ApiKeyUsage', apiKeyUsageSchema);
  }

  async insert(key: NewApiKey, now: Date): Promise<ApiKeyView> {
    const document: ApiKeyDocument = { ...key, created_at: now, revoked_at: null, outbox: [] };
    await this.model.create(document);
    return { ...document, last_used_at: null };
  }

  findById(id: string): Promise<ApiKeyDocument | null> {
    return this.model.findById(id).lean<ApiKeyDocument>().exec();
  }

  findForVerification(id: string): Promise<KeyForVerification | null> {
    return this.model.findById(id, VERIFY_PROJECTION).lean<KeyForVerification>().exec();
  }

  async list(filter: ApiKeyFilter, page: PageRequest): Promise<{ items: ApiKeyView[]; total: number }> {
    const query = toQuery(filter);
    const [keys, total] = await Promise.all([
      this.model
        .find(query, { outbox: 0 })
        .sort({ created_at: -1, _id: -1 })
        .skip(skipFor(page))
        .limit(page.per_page)
        .lean<ApiKeyDocument[]>()
        .exec(),
      this.model.countDocuments(query).exec(),
    ]);
    const uses = await this.usage
      .find({ _id: { $in: keys.map((key) => key._id) } })
      .lean<ApiKeyUsageDocument[]>()
      .exec();
    const lastUse = new Map(uses.map((use) => [use._id, use.last_used_at]));
    return { items: keys.map((key) => ({ ...key, last_used_at: lastUse.get(key._id) ?? null })), total };
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

  /**
   * Records a use of the key, unless this replica recorded one less than
   * `resolutionMs` ago: the hot path stays a read, with one small write per
   * key and minute at most.
   */
  async recordUse(id: string, now: Date, resolutionMs: number): Promise<void> {
    const last = this.recordedUses.get(id);
    if (last !== undefined && now.getTime() - last < resolutionMs) return;
    this.remember(id, now.getTime());
    try {
      await this.usage.updateOne({ _id: id }, { $set: { last_used_at: now } }, { upsert: true }).exec();
    } catch (error) {
      this.recordedUses.delete(id);
      throw error;
    }
  }

  private remember(id: string, at: number): void {
    this.recordedUses.delete(id);
    this.recordedUses.set(id, at);
    if (this.recordedUses.size > MAX_TRACKED_USES) {
      const oldest = this.recordedUses.keys().next().value;
      if (oldest !== undefined) this.recordedUses.delete(oldest);
    }
  }

  /**
   * The configured admin key: created on first start; on later starts its
   * digest follows the configured value (a changed secret with the same id).
   * A revocation is kept: a restart must not revive a key an admin revoked.
   * (Update, else insert, rather than an upsert: FerretDB 1.x drops null
   * values from `$setOnInsert`.) Two replicas inserting at once: the loser
   * gets the duplicate-key error and retries.
   */
  async upsertAdmin(key: Pick<ApiKeyDocument, '_id' | 'digest' | 'last_four' | 'name'>, now: Date): Promise<void> {
    const owner = { role: 'admin' as const, operator_uuid: null, authority: null };
    const { matchedCount } = await this.model
      .updateOne({ _id: key._id }, { $set: { digest: key.digest, last_four: key.last_four, ...owner } })
      .exec();
    if (matchedCount === 0) await this.insert({ ...key, ...owner }, now);
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

