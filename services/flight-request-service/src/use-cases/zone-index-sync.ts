import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import type { ZoneIndex } from '../domain/zones/zone-index.js';
import type { ZoneStore } from '../store/zone-store.js';

/** Changed zones read per query: a burst (a bulk import elsewhere) is read in pieces, never the whole map at once. */
const READ_CHUNK = 100;
const DEBOUNCE_MS = 50;

/**
 * Keeps one replica's in-memory zone index equal to the database: a full load
 * at start and periodically (the safety net), and per-zone reloads when a
 * zone.changed event arrives. All work runs one step at a time, so a reload
 * never overwrites a newer per-zone change with what it read earlier.
 */
export class ZoneIndexSync {
  private readonly changedIds = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly zones: ZoneStore,
    private readonly index: ZoneIndex,
    private readonly gauge: Gauge,
    private readonly log: Logger,
  ) {}

  /** Every live zone into the index, in place: a zone is replaced as it is read, and those no longer live leave at the end. */
  reloadAll(): Promise<void> {
    return this.serially(async () => {
      const live = new Set<string>();
      for await (const zone of this.zones.eachLive()) {
        this.index.upsert(zone);
        live.add(zone.id);
      }
      this.index.keepOnly(live);
      this.gauge.set(this.index.size);
    });
  }

  /** A zone changed somewhere (here or at another replica): refresh it soon, coalescing bursts. */
  changed(zoneId: string): void {
    this.changedIds.add(zoneId);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, DEBOUNCE_MS);
  }

  /** Resolves when every change heard so far is in the index. */
  flush(): Promise<void> {
    return this.serially(async () => {
      const ids = [...this.changedIds];
      this.changedIds.clear();
      for (let offset = 0; offset < ids.length; offset += READ_CHUNK) {
        const chunk = ids.slice(offset, offset + READ_CHUNK);
        const live = new Map((await this.zones.liveAmong(chunk)).map((zone) => [zone.id, zone]));
        for (const id of chunk) {
          const zone = live.get(id);
          if (zone) this.index.upsert(zone);
          else this.index.remove(id);
        }
      }
      this.gauge.set(this.index.size);
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.queue;
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work).catch((error: Error) => {
      this.log.warn({ err: error.message }, 'zone index refresh failed; the periodic reload will retry');
    });
    this.queue = next;
    return next;
  }
}
