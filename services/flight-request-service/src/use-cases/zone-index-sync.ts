import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import type { GeoZone } from '../domain/zones/geo-zone.js';
import type { ZoneIndex } from '../domain/zones/zone-index.js';
import type { ZoneEpoch, ZoneEpochStore } from '../store/zone-epoch-store.js';
import type { ZoneRevision, ZoneStore } from '../store/zone-store.js';

/** Zones read per query: a burst (a bulk import elsewhere) or a whole map is read in pieces, never all at once. */
const READ_CHUNK = 100;
const DEBOUNCE_MS = 50;

/**
 * Keeps one replica's in-memory zone index equal to the database: every live
 * zone's revision compared at start, periodically (the safety net), and
 * whenever a screening finds the zone map's epoch moved since the index last
 * caught up (`current`); per-zone reloads when a zone.changed event arrives.
 * All work runs one step at a time, so a reload never overwrites a newer
 * per-zone change with what it read earlier.
 */
export class ZoneIndexSync {
  private readonly changedIds = new Set<string>();
  /** The revision of each zone in the index, as it was read. */
  private readonly revisions = new Map<string, ZoneRevision>();
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** The epoch read before the last reload that compared every zone: the index holds every change ended before it. */
  private epoch: ZoneEpoch | null = null;
  /** The catch-up under way, shared by the screenings that found the same epoch. */
  private catchingUp: { epoch: ZoneEpoch; done: Promise<void> } | undefined;

  constructor(
    private readonly zones: ZoneStore,
    private readonly epochs: ZoneEpochStore,
    private readonly index: ZoneIndex,
    private readonly gauge: Gauge,
    private readonly log: Logger,
  ) {}

  /**
   * The safety net, at start and periodically: the database's live zones compared by revision with what the
   * index holds. Only the zones that are new or changed since are read (an unchanged map costs one read of ids
   * and revisions, no geometry), each replaced in place, and those no longer live leave.
   */
  reloadAll(): Promise<void> {
    return this.serially(() => this.compareAll());
  }

  /**
   * What a screening asks first: the zone map's epoch (one read by `_id`), and when the index has not caught
   * up with it, a reload as `reloadAll` does, started after that read, so every zone change that ended before
   * the read is in the index when this resolves. Returns the epoch read. Fails when the reload does: a
   * screening must not go on with a map it knows to be behind.
   */
  async current(): Promise<ZoneEpoch> {
    const epoch = await this.epochs.current();
    if (epoch === this.epoch) return epoch;
    let catchingUp = this.catchingUp;
    if (catchingUp?.epoch !== epoch) {
      const done = this.queued(async () => {
        if (this.epoch === epoch) return;
        await this.compareAll();
        this.epoch = epoch;
      });
      const started = { epoch, done };
      catchingUp = started;
      this.catchingUp = started;
      done
        .finally(() => {
          if (this.catchingUp === started) this.catchingUp = undefined;
        })
        .catch(() => undefined);
    }
    await catchingUp.done;
    return epoch;
  }

  /**
   * Zones this replica has just written, one by one (`POST`, `PUT`, `DELETE` of a zone): into its index before
   * the answer, then a new epoch, so every other replica's next screening reloads them.
   */
  async wrote(zoneId: string): Promise<void> {
    this.changed(zoneId);
    await this.flush();
    await this.epochs.advance();
  }

  /** The zone map changed without this replica's write (a zone.changed event to rescreen by): a new epoch. */
  async advance(): Promise<void> {
    await this.epochs.advance();
  }

  private async compareAll(): Promise<void> {
    const live = await this.zones.liveRevisions();
    await this.read([...live].filter(([id, revision]) => this.revisions.get(id) !== revision).map(([id]) => id));
    this.index.keepOnly(new Set(live.keys()));
    for (const id of this.revisions.keys()) if (!live.has(id)) this.revisions.delete(id);
    this.gauge.set(this.index.size);
  }

  /**
   * Zones this replica has just written (an import): into the index at once, without reading thousands back
   * before the answer. Their revisions are left unknown, so the zone.changed events of the same writes (or the
   * periodic reload) read each once more, in the background. Then a new epoch, as `wrote` does.
   */
  async applied(written: readonly GeoZone[], removed: readonly string[]): Promise<void> {
    await this.serially(() => {
      for (const zone of written) {
        this.index.upsert(zone);
        this.revisions.delete(zone.id);
      }
      for (const id of removed) {
        this.index.remove(id);
        this.revisions.delete(id);
      }
      this.gauge.set(this.index.size);
      return Promise.resolve();
    });
    await this.epochs.advance();
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
      await this.read(ids);
      this.gauge.set(this.index.size);
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.queue;
  }

  /** These zones as they are now, read in pieces: each live one replaces its copy in the index, the others leave it. */
  private async read(ids: readonly string[]): Promise<void> {
    for (let offset = 0; offset < ids.length; offset += READ_CHUNK) {
      const chunk = ids.slice(offset, offset + READ_CHUNK);
      const live = new Map((await this.zones.liveAmong(chunk)).map((found) => [found.zone.id, found]));
      for (const id of chunk) {
        const found = live.get(id);
        if (found) {
          this.index.upsert(found.zone);
          this.revisions.set(id, found.revision);
        } else {
          this.index.remove(id);
          this.revisions.delete(id);
        }
      }
    }
  }

  /** After the work queued before it; a failure is logged and resolves (the periodic reload retries). */
  private serially(work: () => Promise<void>): Promise<void> {
    return this.queued(work).catch(() => undefined);
  }

  /** After the work queued before it; a failure is logged and also rejects the returned promise. */
  private queued(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work);
    this.queue = next.catch((error: Error) => {
      this.log.warn({ err: error.message }, 'zone index refresh failed; the periodic reload will retry');
    });
    return next;
  }
}
