/**
 * Group commit for appends: an item submitted while the previous batch is
 * being written waits for it and goes with the others that arrived
 * meanwhile, in one command. Alone, an item is written at once; under load,
 * one command carries many items, so the database does a fraction of the
 * round trips (an attempt log written by dozens of deliveries in flight).
 * Each caller's promise settles with its own batch, with what the batch's
 * write returned (`R`: e.g. whether every conditional write in it matched).
 */
export class GroupedWrites<T, R = void> {
  private pending: Array<{ item: T; settle: (outcome: { error: unknown } | { result: R }) => void }> = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<R>,
    private readonly maxBatch = 100,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, settle: (outcome) => ('error' in outcome ? reject(outcome.error) : resolve(outcome.result)) });
      if (!this.writing) void this.writeAll();
    });
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      const outcome = await this.write(batch.map((entry) => entry.item)).then(
        (result) => ({ result }),
        (failure: unknown) => ({ error: failure ?? new Error('write failed') }),
      );
      for (const entry of batch) entry.settle(outcome);
    }
    this.writing = false;
  }
}
