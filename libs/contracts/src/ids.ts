import { randomUUID } from 'node:crypto';

/**
 * A new random id (UUID v4), as one flat string. Node builds `randomUUID()`'s text by joining two dozen
 * pieces, which V8 keeps as a tree of string pieces until something reads the text whole: an id held that
 * way takes 489 bytes of heap, against 64 once flat (docs/performance.md, item 54), and ids are held for as
 * long as the work they name is under way. `toLowerCase()` reads the text whole (it is lowercase already)
 * and returns it flat.
 */
export function newId(): string {
  return randomUUID().toLowerCase();
}
