import type { Connection, Model } from 'mongoose';
import type { Logger } from 'pino';
import { Gauge, Counter, type Registry } from 'prom-client';
import type { EventEnvelope } from '@dfc/contracts';
import type { Broker } from '../broker/broker.js';
import { findUpTo, serialisedPerDocument } from '../db/engine-gaps.js';
import { Lease } from '../db/lease.js';
import { NOTHING_PENDING, type OutboxFields } from './fields.js';
import { repeatEvery, type PeriodicJob } from '../periodic.js';

interface RelayOptions {
  /** Off only to simulate a crash between a write and its publication (tests, benchmarks). */
  publishing?: boolean;
  /** How often the sweep looks while this relay knows of entries left unpublished (1 s). */
  sweepIntervalMs?: number;
  /** How often it looks otherwise, for what a replica that died between a write and its publish left behind (30 s). */
  idleSweepIntervalMs?: number;
  /** The sweep leaves documents younger than this to the writer's own fast path. */
  sweepGraceMs?: number;
  /** How long a sweeping replica that died keeps the other replicas from sweeping (15 s). */
  sweepLeaseMs?: number;
  registry?: Registry;
}

/** What a write left in a document: the version it produced and the whole outbox after it. */
export interface WrittenOutbox {
  version: number;
  outbox: EventEnvelope[];
}

/** A model whose documents carry an outbox (the relay reads only `_id`, `outbox` and `outbox_pending_since`, and matches `version` when the writer tells it). */
export type OutboxModel = Model<OutboxFields & { _id: unknown; version?: number }>;

/**
 * Publishes the events writers put in their documents' outboxes: right after
 * the write (`notify`, the fast path), and by a sweep for what the fast path
 * could not publish. The sweep looks every second while this relay knows of
 * such entries (a publish it deferred because the broker was away, a sweep
 * that found some), and every 30 s otherwise: then only a replica that died
 * between a write and its publish can have left any, and a replica sweeps as
 * it starts. The sweep's query is a range on `outbox_pending_since`, an index
 * scan on MongoDB (read by the hour on the local engine: engine-gaps
 * `findUpTo`); the slower pace spares a quiet service a query a second per
 * collection. One replica of a service sweeps at a time, under a lease
 * given up after each round: replicas sweeping the same oldest documents at
 * once would each publish them.
 */
export class OutboxRelay {
  private sweeps: PeriodicJob | undefined;
  /** Whether this relay knows of entries left unpublished: the sweep keeps its quick pace while it does. */
  private unpublishedKnown = true;
  /**
   * When entries were last known to be left (performance.now()): a publish deferred to the sweep, or
   * the relay's start, before which a replica that died may have left entries younger than the grace.
   */
  private lastLeftUnpublished = Number.NEGATIVE_INFINITY;
  private readonly models: OutboxModel[] = [];
  private readonly sweepLeases = new Map<Connection, Lease>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly sentInRun = new Map<string, Set<string>>();
  private readonly published: Counter<'type'> | undefined;
  private readonly lag: Gauge | undefined;

  constructor(
    private readonly broker: Broker,
    private readonly log: Logger,
    private readonly options: RelayOptions = {},
  ) {
    if (options.registry) {
      this.published = new Counter({
        name: 'events_published_total',
        help: 'Domain events published to the broker (confirmed)',
        labelNames: ['type'] as const,
        registers: [options.registry],
      });
      this.lag = new Gauge({
        name: 'outbox_lag_seconds',
        help: 'Age of the oldest unpublished outbox entry at the last sweep',
        registers: [options.registry],
      });
    }
  }

  /** A collection whose documents carry an outbox: the sweep looks there too. */
  watch(model: OutboxModel): void {
    if (!this.models.includes(model)) this.models.push(model);
  }

  start(): void {
    if (this.options.publishing === false) return;
    this.lastLeftUnpublished = performance.now();
    const pace = () => (this.unpublishedKnown ? (this.options.sweepIntervalMs ?? 1000) : (this.options.idleSweepIntervalMs ?? 30_000));
    this.sweeps = repeatEvery('outbox sweep', pace, () => this.sweep(), this.log, { immediately: true });
  }

  /** Waits for the sweep under way (closing the connection under its query would interrupt it) and the publishes in flight. */
  async stop(): Promise<void> {
    await this.sweeps?.stop();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Fast path: publish a document's entries right after the write that added
   * them. A writer that knows what it wrote (`written`: the version its write
   * produced and the whole outbox after it) saves the relay a read, and the
   * relay empties the outbox in one write conditional on that version.
   */
  notify(model: OutboxModel, id: unknown, written?: WrittenOutbox): Promise<void> {
    if (this.options.publishing === false) return Promise.resolve();
    const key = `${model.collection.name}:${String(id)}`;
    const previous = this.inFlight.get(key) ?? Promise.resolve();
    // Writes racing on one document each hand over an outbox that may hold the others' entries too:
    // what an earlier step of the same run published is not published again.
    const sent = this.sentInRun.get(key) ?? new Set<string>();
    this.sentInRun.set(key, sent);
    const next = previous
      .then(() => (written ? this.publishWritten(model, id, written, sent) : this.drain(model, id, sent)))
      .catch((error: Error) => {
        this.log.warn({ err: error.message, doc: key }, 'outbox publish deferred to the sweep');
        this.lastLeftUnpublished = performance.now();
        this.unpublishedKnown = true;
        this.sweeps?.paceChanged();
      });
    this.inFlight.set(key, next);
    void next.finally(() => {
      if (this.inFlight.get(key) !== next) return;
      this.inFlight.delete(key);
      this.sentInRun.delete(key);
    });
    return next;
  }

  /**
   * Publishes everything older than the grace period, in all models. Unpublished entries stay known
   * until a sweep finds none and none was left since its cutoff (an entry younger than the grace is
   * not found yet); a sweep that fails or finds the broker away leaves them known.
   */
  private async sweep(): Promise<void> {
    this.unpublishedKnown = true;
    if (!this.broker.isConnected()) return;
    const graceMs = this.options.sweepGraceMs ?? 2000;
    const cutoff = new Date(Date.now() - graceMs);
    const leftBefore = performance.now() - graceMs;
    let found = 0;
    let swept = false;
    let oldest: number | undefined;
    for (const [connection, models] of this.modelsByConnection()) {
      const ran = await this.sweepLease(connection).runIfHeld(
        async () => {
          for (const model of models) {
            const pending = await findUpTo<{ _id: unknown; outbox_pending_since?: Date }>(model, {}, 'outbox_pending_since', cutoff, 500, {
              _id: 1,
              outbox_pending_since: 1,
            });
            found += pending.length;
            for (const doc of pending) {
              const since = doc.outbox_pending_since?.getTime();
              if (since !== undefined) oldest = Math.min(oldest ?? since, since);
              await this.notify(model, doc._id);
            }
          }
        },
        { release: true },
      );
      swept ||= ran;
    }
    // A round another replica was sweeping is that replica's to report; what this one left is still known.
    if (swept) this.lag?.set(oldest === undefined ? 0 : (Date.now() - oldest) / 1000);
    this.unpublishedKnown = found > 0 || this.lastLeftUnpublished >= leftBefore;
  }

  private modelsByConnection(): Map<Connection, OutboxModel[]> {
    const grouped = new Map<Connection, OutboxModel[]>();
    for (const model of this.models) grouped.set(model.db, [...(grouped.get(model.db) ?? []), model]);
    return grouped;
  }

  private sweepLease(connection: Connection): Lease {
    const known = this.sweepLeases.get(connection);
    if (known) return known;
    const lease = new Lease(connection, 'outbox-sweep', { ttlMs: this.options.sweepLeaseMs ?? 15_000 });
    this.sweepLeases.set(connection, lease);
    return lease;
  }

  /**
   * Publishes the outbox as the writer left it and empties it, if the document
   * is still at that version (one write). When it has changed since, the
   * entries published are pulled out and the rest is drained as the sweep would.
   */
  private async publishWritten(model: OutboxModel, id: unknown, written: WrittenOutbox, sent: Set<string>): Promise<void> {
    await this.publish(written.outbox, sent);
    const emptied = await serialisedPerDocument(model.collection.name, id, () =>
      model.updateOne({ _id: id, version: written.version }, { $set: { outbox: [] }, $unset: NOTHING_PENDING }),
    );
    if (emptied.matchedCount === 1) return;
    await serialisedPerDocument(model.collection.name, id, () => model.updateOne({ _id: id }, { $pullAll: { outbox: written.outbox } }));
    await this.drain(model, id, sent);
  }

  /** Those not published yet, in order on the one confirm channel; resolves when the broker has every one. */
  private async publish(events: EventEnvelope[], sent: Set<string>): Promise<void> {
    const fresh = events.filter((event) => !sent.has(event.id));
    await Promise.all(fresh.map((event) => this.broker.publish(event)));
    for (const event of fresh) {
      sent.add(event.id);
      this.published?.inc({ type: event.type });
    }
  }

  private async drain(model: OutboxModel, id: unknown, sent: Set<string>): Promise<void> {
    const doc = await model.findById(id, { outbox: 1 }).lean();
    if (!doc) return;
    const events = doc.outbox ?? [];
    if (events.length > 0) {
      await this.publish(events, sent);
      // One write for the whole batch, removing exactly the entries published; events pushed meanwhile stay.
      await serialisedPerDocument(model.collection.name, id, () => model.updateOne({ _id: id }, { $pullAll: { outbox: events } }));
    }
    await serialisedPerDocument(model.collection.name, id, () => model.updateOne({ _id: id, outbox: { $size: 0 } }, { $unset: NOTHING_PENDING }));
  }
}
