/** Deeper than any document the API takes (a flight area is about 9 levels); far below what recursion survives. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a JSON text nests objects and arrays deeper than `limit`, found by
 * one pass over the raw characters (strings skipped) before `JSON.parse` or
 * any schema walk recurses into it. Malformed text is left to `JSON.parse`.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i += 1; // backslash: the next character is escaped
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1;
    }
  }
  return false;
}
