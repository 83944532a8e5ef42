import { GroupedWrites } from './grouped-writes.js';

/**
 * Group commit for reads of one key (the same query): a caller that asks while
 * that key's read is under way waits for it and shares the next read with the
 * others that asked meanwhile. So every answer comes from a read that started
 * after its caller asked: a caller never gets a result that could miss a write
 * it saw complete (a plain in-flight share would hand out the read started
 * before it). A burst of callers for one key costs two reads instead of one each.
 */
export class GroupedReads<V> {
  private readonly keys = new Map<string, { reads: GroupedWrites<void, V>; waiting: number }>();

  /** `read` is the query `key` names: whichever caller's is used, they are the same. */
  async get(key: string, read: () => Promise<V>): Promise<V> {
    let group = this.keys.get(key);
    if (!group) {
      group = { reads: new GroupedWrites<void, V>(read), waiting: 0 };
      this.keys.set(key, group);
    }
    group.waiting += 1;
    try {
      return await group.reads.add(undefined);
    } finally {
      group.waiting -= 1;
      // Nobody waits on the key: forgotten, so the map holds only keys being read.
      if (group.waiting === 0) this.keys.delete(key);
    }
  }
}
