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
 * What a body's bytes may cost while it is read, before its text is known: the Buffer read from the socket
 * and the decoded string, which is two bytes per character when the text holds any character beyond Latin-1.
 */
export const RAW_BYTES_PER_BODY_BYTE = 3;

/** Any character but printable ASCII and JSON's whitespace: the text may then be a two-byte string. */
const BEYOND_ASCII = /[^ -~\t\n\r]/;

/**
 * What a body holds once its text is read, while it is parsed: the text (one byte a character, two where any
 * character is beyond ASCII, `BEYOND_ASCII`; the Buffer it was decoded from lies outside the heap and is let go) and what
 * parsing it builds. It replaces the reservation made for reading, so a body is judged by the larger of the
 * two, never by their sum.
 */
export function textHeapBytes(text: string): number {
  const width = charWidthOf(text);
  return width * text.length + heapOfParse(text, width);
}

/** Bytes a character of `text` takes in a string of the heap. */
function charWidthOf(text: string): 1 | 2 {
  return BEYOND_ASCII.test(text) ? 2 : 1;
}

/** The most of the budget a body of `text` holds at once: its raw bytes while it is read, or then its text and its parse. */
export function bodyReservation(text: string): number {
  return Math.max(RAW_BYTES_PER_BODY_BYTE * Buffer.byteLength(text), textHeapBytes(text));
}

/**
 * The heap `JSON.parse` builds from a text, over-estimated from one pass over its characters: the weights are
 * above what an object, an array, a member, a value and a string's character (built anew beside the text) cost
 * on the Node versions the services run on, so a hostile shape cannot cost more than it reserved.
 *
 * An object's members are where shapes differ most. V8 gives every object the hidden class its keys, in
 * their order, lead to from the empty object's: a key that follows the same keys as in an object before
 * costs a slot, a new one a hidden class of its own, over ten times as much (a body of small objects whose
 * keys all differ costs over 300 bytes an object). So the pass follows each object's keys through the
 * sequences met so far, for a bounded number of them; beyond that bound every member counts as new. The
 * costliest bodies per byte are small objects whose keys are all new, and empty objects; an authority's dataset,
 * whose features repeat their keys, reserves about a fifth of what they do.
 */
export function parsedHeapBytes(text: string): number {
  return heapOfParse(text, charWidthOf(text));
}

function heapOfParse(text: string, width: 1 | 2): number {
  let containers = 0;
  let stringChars = 0;
  let lastStringChars = 0;
  let newMembers = 0;
  let values = 0;
  // What the innermost open containers are: an object's id of the key sequence it has so far, or an array.
  const open: number[] = [];
  let depth = 0;
  const sequences = new Map<string, number>();
  let keyStart = 0;
  let keyEnd = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1;
      else if (char === 0x22) {
        inString = false;
        keyEnd = i;
        lastStringChars = keyEnd - keyStart;
        stringChars += lastStringChars;
      }
    } else if (char === 0x22) {
      inString = true;
      keyStart = i + 1;
    } else if (char === 0x7b || char === 0x5b) {
      containers += 1;
      if (depth < MAX_FOLLOWED_DEPTH) open.push(char === 0x7b ? EMPTY_OBJECT : IN_ARRAY);
      depth += 1;
    } else if (char === 0x7d || char === 0x5d) {
      if (depth <= MAX_FOLLOWED_DEPTH) open.pop();
      depth -= 1;
    } else if (char === 0x3a) {
      values += 1;
      // A short key was a string like any until now: V8 keeps one copy of it, which a new member's weight covers.
      if (lastStringChars <= MAX_FOLLOWED_KEY_CHARS) stringChars -= lastStringChars;
      lastStringChars = 0;
      const object = depth <= MAX_FOLLOWED_DEPTH ? (open[open.length - 1] ?? UNFOLLOWED) : UNFOLLOWED;
      if (object < 0 || keyEnd - keyStart > MAX_FOLLOWED_KEY_CHARS) {
        newMembers += 1;
        if (object >= 0) open[open.length - 1] = UNFOLLOWED;
        continue;
      }
      const step = `${object}:${text.slice(keyStart, keyEnd)}`;
      let next = sequences.get(step);
      if (next === undefined) {
        newMembers += 1;
        next = sequences.size < MAX_FOLLOWED_SEQUENCES ? sequences.size + 1 : UNFOLLOWED;
        if (next !== UNFOLLOWED) sequences.set(step, next);
      }
      open[open.length - 1] = next;
    } else if (char === 0x2c) {
      values += 1;
    }
  }
  return (
    containers * HEAP_BYTES_PER_CONTAINER +
    newMembers * HEAP_BYTES_PER_NEW_MEMBER +
    values * HEAP_BYTES_PER_VALUE +
    stringChars * width * HEAP_BYTES_PER_STRING_BYTE
  );
}

const HEAP_BYTES_PER_CONTAINER = 80;
/** Beyond the value's slot (counted as any value's): the hidden class and the key's own string. */
const HEAP_BYTES_PER_NEW_MEMBER = 240;
const HEAP_BYTES_PER_VALUE = 24;
/** Per byte of a value string's characters: the parse builds each string anew beside the text, header and all. */
const HEAP_BYTES_PER_STRING_BYTE = 3;
const EMPTY_OBJECT = 0;
const IN_ARRAY = -1;
/** An object whose key sequence is no longer followed (or a colon outside any object): each further member counts as new. */
const UNFOLLOWED = -2;
/** Key sequences followed at once; their map stays far below what a body of that many members reserves. */
const MAX_FOLLOWED_SEQUENCES = 10_000;
/** Deeper than any body is let through (MAX_JSON_DEPTH): a text nested deeper is refused once reserved. */
const MAX_FOLLOWED_DEPTH = 64;
/** A longer key is followed no further: its own characters already reserve a third of what a new member does. */
const MAX_FOLLOWED_KEY_CHARS = 64;
/** Leaves the rest of the heap to the process's own state and the work a request does beyond its body. */
export const DEFAULT_HEAP_SHARE = 0.4;

let processBudget: BodyBudget | undefined;

/** The one budget of this process, shared by every reader of bodies in it. */
export function processBodyBudget(): BodyBudget {
  processBudget ??= BodyBudget.forHeap();
  return processBudget;
}
