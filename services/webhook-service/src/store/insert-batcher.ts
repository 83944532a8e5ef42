import type { Delivery } from './delivery-model.js';

interface Waiting {
  documents: Delivery[];
  resolve: (created: Set<string>) => void;
  reject: (error: unknown) => void;
}

const MAX_DOCUMENTS = 500;

/**
 * Groups the inserts of events handled at the same time (the consumer works
 * on several broker messages at once) into one write: inserts that arrive
 * while a write is under way go together into the next. Each caller learns
 * which of its documents were new (duplicates of an earlier handling are not).
 */
export class InsertBatcher {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly write: (documents: Delivery[]) => Promise<Set<string>>) {}

  insert(documents: Delivery[]): Promise<Set<string>> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ documents, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.takeBatch();
      try {
        const created = await this.write(batch.flatMap((entry) => entry.documents));
        for (const entry of batch) entry.resolve(created);
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = false;
  }

  private takeBatch(): Waiting[] {
    let count = 0;
    let take = 0;
    while (take < this.waiting.length && (take === 0 || count + (this.waiting[take]?.documents.length ?? 0) <= MAX_DOCUMENTS)) {
      count += this.waiting[take]?.documents.length ?? 0;
      take++;
    }
    return this.waiting.splice(0, take);
  }
}
