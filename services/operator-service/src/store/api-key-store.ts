import { Schema, type Connection, type IndexDefinition, type Model, type QueryFilter } from 'mongoose';
import { skipFor, type PageRequest } from '@dfc/kit/pagination';
import { AggregateStore, outboxSchemaFields, WITHOUT_OUTBOX, type Aggregate, type Decide, type OutboxRelay } from '@dfc/kit/outbox';
import { countMatching, findWhereIn } from '@dfc/kit/db';
import type { ApiKeyRole } from '@dfc/contracts';
import type { KeyListFilter } from '../domain/key-list-filter.js';

/** An API key as stored: never the key itself, only its SHA-256 digest. `_id` is the key's public id. */
export interface ApiKeyDocument extends Aggregate {
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
 * written from the verification hot path without a version check. Kept apart
 * so the key document changes only by decisions (issue, revoke) through the
 * write path, and the frequent use write never contends with a revocation.
 */
interface ApiKeyUsageDocument {
  _id: string;
  last_used_at: Date;
}

/** A key with its last use, as listed. */
export type ApiKeyView = ApiKeyDocument & { last_used_at: Date | null };

export type NewApiKey = Omit<ApiKeyDocument, 'version' | 'revoked_at'>;

const nullableString = { type: String, default: null };

const apiKeySchema = new Schema<ApiKeyDocument>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    digest: { type: String, required: true },
    role: { type: String, required: true, enum: ['operator', 'reviewer', 'admin'] },
    operator_uuid: nullableString,
    authority: nullableString,
    name: nullableString,
    last_four: { type: String, required: true },
    created_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
    ...outboxSchemaFields,
  },
  { collection: 'api_keys', versionKey: false, timestamps: false },
);

/** The lists' order, newest first; `_id` breaks ties so pages are stable. */
const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

/**
 * The lists filter by at most one owner field (none, `role`, `operator_uuid`
 * or `authority`: see `keyListFilter`) and the status, newest first. Per
 * owner, by equality → sort → range: `status=active` is an equality on
 * `revoked_at: null`, served with `revoked_at` before the sort; no status, and
 * `status=revoked` (a range, `$ne: null`), with `revoked_at` after the sort.
 */
for (const owner of [[], ['role'], ['operator_uuid'], ['authority']]) {
  const prefix: IndexDefinition = Object.fromEntries(owner.map((field) => [field, 1]));
  apiKeySchema.index({ ...prefix, revoked_at: 1, ...NEWEST_FIRST });
  apiKeySchema.index({ ...prefix, ...NEWEST_FIRST, revoked_at: 1 });
}

const apiKeyUsageSchema = new Schema<ApiKeyUsageDocument>(
  { _id: { type: String, required: true }, last_used_at: { type: Date, required: true } },
  { collection: 'api_key_usage', versionKey: false, timestamps: false },
);

/** Fields the hot path (verification) reads; the digest is compared, never returned to clients. */
const VERIFY_PROJECTION = { digest: 1, role: 1, operator_uuid: 1, authority: 1, revoked_at: 1 } as const;
export type KeyForVerification = Pick<ApiKeyDocument, '_id' | keyof typeof VERIFY_PROJECTION>;

/** Bounds the in-memory "last recorded use" map; older entries are dropped first when it is full. */
const MAX_TRACKED_USES = 10_000;

export function apiKeyModel(connection: Connection): Model<ApiKeyDocument> {
  return (connection.models['ApiKey'] as Model<ApiKeyDocument> | undefined) ?? connection.model<ApiKeyDocument>('ApiKey', apiKeySchema);
}

export function apiKeyUsageModel(connection: Connection): Model<ApiKeyUsageDocument> {
  return (
    (connection.models['ApiKeyUsage'] as Model<ApiKeyUsageDocument> | undefined) ??
    connection.model<ApiKeyUsageDocument>('ApiKeyUsage', apiKeyUsageSchema)
  );
}

export class ApiKeyStore {
  private readonly aggregates: AggregateStore<ApiKeyDocument>;
  private readonly usage: Model<ApiKeyUsageDocument>;
  /** When this replica last wrote each key's use: the write happens at most once per resolution. */
  private readonly recordedUses = new Map<string, number>();

  constructor(connection: Connection, relay: OutboxRelay) {
    const model = apiKeyModel(connection);
    this.aggregates = new AggregateStore(model, relay);
    this.usage = apiKeyUsageModel(connection);
  }

  /** A new key (not revoked, never used). A unique-index refusal (an id taken) propagates: see `isDuplicateKey`. */
  async insert(key: NewApiKey): Promise<ApiKeyView> {
    const stored = await this.aggregates.insert({ ...key, revoked_at: null });
    return { ...stored, last_used_at: null };
  }

  /** Applies what `decide` makes of the current key in one conditional write (404 when there is none). */
  change(id: string, decide: Decide<ApiKeyDocument>): Promise<ApiKeyDocument> {
    return this.aggregates.change(id, decide);
  }

  findById(id: string): Promise<ApiKeyDocument | null> {
    return this.aggregates.find(id);
  }

  findForVerification(id: string): Promise<KeyForVerification | null> {
    return this.aggregates.model.findById(id, VERIFY_PROJECTION).lean<KeyForVerification>().exec();
  }

  /** One page and the total: two commands, then one more for the page's last uses. */
  async list(filter: KeyListFilter, page: PageRequest): Promise<{ items: ApiKeyView[]; total: number }> {
    const query = toQuery(filter);
    const [keys, total] = await Promise.all([
      this.aggregates.model.find(query, WITHOUT_OUTBOX).sort(NEWEST_FIRST).skip(skipFor(page)).limit(page.per_page).lean<ApiKeyDocument[]>().exec(),
      this.count(query),
    ]);
    return { items: await this.withLastUse(keys), total };
  }

  private count(query: QueryFilter<ApiKeyDocument>): Promise<number> {
    return countMatching(this.aggregates.model, query);
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

  private async withLastUse(keys: ApiKeyDocument[]): Promise<ApiKeyView[]> {
    if (keys.length === 0) return [];
    const uses = await findWhereIn(
      this.usage,
      '_id',
      keys.map((key) => key._id),
    );
    const lastUse = new Map(uses.map((use) => [use._id, use.last_used_at]));
    return keys.map((key) => ({ ...key, last_used_at: lastUse.get(key._id) ?? null }));
  }

  private remember(id: string, at: number): void {
    this.recordedUses.delete(id);
    this.recordedUses.set(id, at);
    if (this.recordedUses.size > MAX_TRACKED_USES) {
      const oldest = this.recordedUses.keys().next().value;
      if (oldest !== undefined) this.recordedUses.delete(oldest);
    }
  }
}

function toQuery(filter: KeyListFilter): QueryFilter<ApiKeyDocument> {
  const query: QueryFilter<ApiKeyDocument> = { ...filter.owner };
  if (filter.status === 'active') query.revoked_at = null;
  if (filter.status === 'revoked') query.revoked_at = { $ne: null };
  return query;
}
