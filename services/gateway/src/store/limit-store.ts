import { MongoClient } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo } from 'rate-limiter-flexible';
// The engine gaps alone, not `@dfc/kit/db`: the gateway has no models and never loads mongoose.
import { createIndexesOn, expireCollectionAsTtlWould, TTL_MONITOR_INTERVAL_MS, type IndexDeclaration } from '@dfc/kit/engine-gaps';

export interface SharedLimit {
  /** Names the counters of this limit apart from the others in the one collection. */
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

/** How long a limiter waits for the database before its insurance answers for it. */
const DATABASE_WAIT_MS = 1_000;

const COLLECTION = 'rate_limits';
const PREPARE_RETRY_MS = 5_000;

/**
 * The indexes rate-limiter-flexible's MongoDB store declares: a counter expires when its window
 * does, and one counter per key, so that two replicas counting a new key's first call meet in one
 * document. Built here (its own creation is off) so that the local engine, which refuses the TTL
 * option, still gets the unique one.
 */
const INDEXES: IndexDeclaration[] = [
  [{ expire: -1 }, { expireAfterSeconds: 0 }],
  [{ key: 1 }, { unique: true }],
];

/**
 * Counters every gateway replica shares: rate-limiter-flexible's MongoDB store, one collection
 * (`rate_limits`, with the TTL and unique indexes the store declares) for every limit kept
 * on it. Counting a call is one conditional upsert (`$inc`), which returns the new count, so a
 * call costs one database write and no read. A key once over its limit is refused from memory
 * until its window ends (`inMemoryBlockOnConsumed`), so a flood or an attack costs the database
 * one write per replica, not one per attempt; while the database cannot be reached, each replica
 * counts in memory instead (the insurance limiter), per replica, rather than failing open or
 * refusing everyone.
 */
export class SharedLimitStore {
  private readonly client: MongoClient;
  private retry: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;

  /** `maxPoolSize`: connections to the database at most; calls beyond them wait for one. */
  constructor(
    mongoUrl: string,
    private readonly database: string,
    maxPoolSize?: number,
  ) {
    this.client = new MongoClient(mongoUrl, {
      serverSelectionTimeoutMS: DATABASE_WAIT_MS,
      socketTimeoutMS: DATABASE_WAIT_MS * 5,
      ...(maxPoolSize === undefined ? {} : { maxPoolSize }),
    });
  }

  /**
   * Builds the collection's indexes, retried until the database answers, then keeps expiring
   * counters where the engine does not (nothing to do on MongoDB).
   */
  prepare(onError: (error: unknown) => void): void {
    const db = this.client.db(this.database);
    createIndexesOn(db, COLLECTION, INDEXES).then(
      () => {
        this.expiry = setInterval(() => {
          expireCollectionAsTtlWould(db, COLLECTION, { field: 'expire', seconds: 0 }).catch(onError);
        }, TTL_MONITOR_INTERVAL_MS).unref();
      },
      (error: unknown) => {
        onError(error);
        this.retry = setTimeout(() => this.prepare(onError), PREPARE_RETRY_MS).unref();
      },
    );
  }

  limiter(limit: SharedLimit): RateLimiterMongo {
    return new RateLimiterMongo({
      storeClient: this.client,
      dbName: this.database,
      tableName: COLLECTION,
      disableIndexesCreation: true,
      keyPrefix: limit.keyPrefix,
      points: limit.points,
      duration: limit.durationSeconds,
      // Once over, not at, the limit: a login counted ahead and then given back must not leave its account blocked.
      inMemoryBlockOnConsumed: limit.points + 1,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: limit.keyPrefix, points: limit.points, duration: limit.durationSeconds }),
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.retry);
    clearInterval(this.expiry);
    await this.client.close();
  }
}
