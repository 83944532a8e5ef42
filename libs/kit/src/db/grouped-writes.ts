/**
 * Group commit for appends: an item submitted while the previous batch is
 * being written waits for it and goes with the others that arrived
 * meanwhile, in one command. Alone, an item is written at once; under load,
 * one command carries many items, so the database does a fraction of the
 * round trips (an attempt log written by dozens of deliveries in flight).
 * Each caller's promise settles with its own batch.
 */
export class GroupedWrites<T> {
  private pending: Array<{ item: T; settle: (error?: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch = 100,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) void this.writeAll();
    });
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      const error = await this.write(batch.map((entry) => entry.item)).then(
        () => undefined,
        (failure: unknown) => failure ?? new Error('write failed'),
      );
      for (const entry of batch) entry.settle(error);
    }
    this.writing = false;
  }
}
