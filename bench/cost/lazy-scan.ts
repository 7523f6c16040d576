/**
 * A prototype for "parse bodies without building an object per line": one pass over the body text
 * that finds, for each element of `lines`, where each key and value starts and ends, into one
 * flat Int32Array, with no object, array or string made per line. Values are decoded later only
 * where needed. It is the least such a parser must do, so it bounds the idea's gain: if this is
 * not faster than JSON.parse, no lazy parser written in JavaScript will be.
 * Handles the JSON grammar (strings with escapes, nesting) but assumes a valid body.
 */

const QUOTE = 34;
const BACKSLASH = 92;

/** Index just past the string starting at `at` (which holds the opening quote). */
function skipString(text: string, at: number): number {
  for (let i = at + 1; ; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH) i++;
  }
}

/** Index just past the value starting at `at` (after whitespace). */
function skipValue(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === QUOTE) return skipString(text, at);
  if (code === 123 || code === 91) {
    let depth = 0;
    for (let i = at; ; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = skipString(text, i) - 1;
      else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (--depth === 0) return i + 1;
      }
    }
  }
  let i = at;
  for (; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) return i;
  }
}

const skipSpace = (text: string, at: number) => {
  let i = at;
  for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  return i;
};

/**
 * Offsets of every line object's members: for line n, spans[lineStart[n] .. lineStart[n+1]) hold
 * (keyStart, keyEnd, valueStart, valueEnd) quadruples. Returns the number of lines.
 */
export function scanLines(text: string, spans: Int32Array, lineStart: Int32Array): number {
  // Find "lines": at the top level (the envelope is small: a linear search is fine here).
  let i = text.indexOf('"lines"');
  i = skipSpace(text, text.indexOf('[', i) + 1);
  let lines = 0;
  let quad = 0;
  while (text.charCodeAt(i) === 123) {
    lineStart[lines++] = quad;
    i = skipSpace(text, i + 1);
    while (text.charCodeAt(i) === QUOTE) {
      const keyEnd = skipString(text, i);
      const valueStart = skipSpace(text, text.indexOf(':', keyEnd) + 1);
      const valueEnd = skipValue(text, valueStart);
      spans[quad++] = i;
      spans[quad++] = keyEnd;
      spans[quad++] = valueStart;
      spans[quad++] = valueEnd;
      i = skipSpace(text, valueEnd);
      if (text.charCodeAt(i) === 44) i = skipSpace(text, i + 1);
    }
    i = skipSpace(text, i + 1); // past }
    if (text.charCodeAt(i) === 44) i = skipSpace(text, i + 1);
  }
  lineStart[lines] = quad;
  return lines;
}

/** A string value's text: sliced, and decoded by JSON.parse only when it holds an escape. */
export function stringValue(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}
