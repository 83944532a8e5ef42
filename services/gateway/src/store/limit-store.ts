import { MongoClient } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo } from 'rate-limiter-flexible';

export interface SharedLimit {
  /** Names the counters of this limit apart from the others in the one collection. */
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

/** How long a limiter waits for the database before its insurance answers for it. */
const DATABASE_WAIT_MS = 1_000;

/**
 * Counters every gateway replica shares: rate-limiter-flexible's MongoDB store, one collection
 * (`rate_limits`, with the TTL and unique indexes the store declares itself) for every limit kept
 * on it. Counting a call is one conditional upsert (`$inc`), which returns the new count, so a
 * call costs one database write and no read. A key once over its limit is refused from memory
 * until its window ends (`inMemoryBlockOnConsumed`), so a flood or an attack costs the database
 * one write per replica, not one per attempt; while the database cannot be reached, each replica
 * counts in memory instead (the insurance limiter), per replica, rather than failing open or
 * refusing everyone.
 */
export class SharedLimitStore {
  private readonly client: MongoClient;

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

  limiter(limit: SharedLimit): RateLimiterMongo {
    return new RateLimiterMongo({
      storeClient: this.client,
      dbName: this.database,
      tableName: 'rate_limits',
      keyPrefix: limit.keyPrefix,
      points: limit.points,
      duration: limit.durationSeconds,
      inMemoryBlockOnConsumed: limit.points,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: limit.keyPrefix, points: limit.points, duration: limit.durationSeconds }),
    });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
