import { getHeapStatistics } from 'node:v8';

/**
 * The heap a process lets request bodies hold at once. A JSON body costs many times its size in heap
 * once read and parsed (most of all a body of many small objects), so a byte limit per request
 * alone lets a few concurrent bodies exhaust the heap. Every body reserves what it will cost before it
 * is read, and again once its text shows what parsing it will build; a reservation that does not fit
 * beside the others is refused (503 with Retry-After), one that could never fit is refused as too
 * large (413). The reservation is returned when the answer has been sent.
 */
export class BodyBudget {
  private reservedBytes = 0;

  constructor(readonly capacityBytes: number) {}

  /** A share of the process's heap limit (`--max-old-space-size`, or what node gives itself). */
  static forHeap(share = DEFAULT_HEAP_SHARE): BodyBudget {
    return new BodyBudget(Math.floor(getHeapStatistics().heap_size_limit * share));
  }

  get inUseBytes(): number {
    return this.reservedBytes;
  }

  /** Whether `bytes` could ever be reserved, with nothing else in flight. */
  admits(bytes: number): boolean {
    return bytes <= this.capacityBytes;
  }

  /** Reserves `bytes`; the returned function gives them back (once, however often it is called). Undefined when they do not fit now. */
  tryReserve(bytes: number): (() => void) | undefined {
    if (this.reservedBytes + bytes > this.capacityBytes) return undefined;
    this.reservedBytes += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reservedBytes -= bytes;
    };
  }
}

/**
 * What a body's bytes cost before parsing: the Buffer read from the socket and the decoded string, which
 * is two bytes per character when the text holds any character beyond Latin-1.
 */
export const RAW_BYTES_PER_BODY_BYTE = 3;

/**
 * The heap `JSON.parse` builds from a text, over-estimated from one pass over its characters (strings
 * skipped: their characters are in what the raw bytes reserved): the weights are above what an object, an
 * array, a member and a value in them cost on the Node versions the services run on, so a hostile shape
 * cannot cost more than it reserved. A member weighs most: a key the parser has not met at that place
 * gives its object a hidden class of its own, so a body of small objects whose keys all differ costs
 * over 300 bytes an object. The costliest bodies per byte, members of one character each (`"":0,`),
 * reserve 56 bytes a byte with the raw bytes; an authority's dataset about 10.
 */
export function parsedHeapBytes(text: string): number {
  let containers = 0;
  let members = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      containers += 1;
    } else if (char === 0x3a) {
      members += 1;
    } else if (char === 0x2c) {
      values += 1;
    }
  }
  return containers * HEAP_BYTES_PER_CONTAINER + members * HEAP_BYTES_PER_MEMBER + values * HEAP_BYTES_PER_VALUE;
}

const HEAP_BYTES_PER_CONTAINER = 80;
const HEAP_BYTES_PER_MEMBER = 240;
const HEAP_BYTES_PER_VALUE = 24;
/** Leaves the rest of the heap to the process's own state and the work a request does beyond its body. */
const DEFAULT_HEAP_SHARE = 0.4;

let processBudget: BodyBudget | undefined;

/** The one budget of this process, shared by every reader of bodies in it. */
export function processBodyBudget(): BodyBudget {
  processBudget ??= BodyBudget.forHeap();
  return processBudget;
}
