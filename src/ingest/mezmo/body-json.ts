/**
 * JSON.parse of an ingest body, with one difference in cost and none in result: a large body's
 * line array is parsed in slices of about 48 KB instead of as one string.
 *
 * Why: V8 puts any string over 128 KB in a memory mapping of its own, mapped on creation and
 * unmapped when collected. On the virtual machines we measure on, faulting those pages in costs
 * 5 to 7 ns per byte, about 1.3 µs per 200-byte line, against 0.02 µs for the same text decoded
 * in slices (bench/remote, docs/performance.md). Agents send bodies of hundreds of kilobytes to
 * megabytes, so every line paid it.
 *
 * How: one pass over the bytes finds the top-level members of the body object, and in the `lines`
 * or `ls` array the commas between elements. Every slice, and the body with those arrays left
 * empty, then goes through JSON.parse itself, so JSON.parse still judges every value. Whenever the
 * pass meets something it does not expect (a body that is not an object, a repeated key, an escape
 * in a key, broken JSON), it gives up and the whole body goes through JSON.parse, which decides.
 */

/** Below this, one string is cheap. */
const PIECES_FROM_BYTES = 96 * 1024;
/** A slice's text stays a regular heap string even when every character takes two bytes. */
const SLICE_BYTES = 48 * 1024;
/** The envelopes' line arrays (ingest-routes.ts: `lines`, or the SDKs' `ls`). */
const LINE_ARRAYS = new Set(['lines', 'ls']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Thrown inside the pass when it cannot follow the body; never escapes this file. */
class NotFollowed extends Error {}
const GIVE_UP = new NotFollowed();

/** Parses an ingest body's bytes as JSON.parse would; throws what JSON.parse throws. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length >= PIECES_FROM_BYTES) {
    try {
      return parseInPieces(bytes);
    } catch {
      // Broken JSON or a shape this pass does not follow: the whole body decides, below.
    }
  }
  return JSON.parse(bytes.toString('utf8'));
}

/** JSON whitespace: space, tab, line feed, carriage return. */
const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

function skipSpace(bytes: Buffer, at: number): number {
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}

/** The index just past the string whose opening quote is at `at`. */
function stringEnd(bytes: Buffer, at: number): number {
  for (let i = at + 1; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) return i + 1;
  }
  throw GIVE_UP;
}

/**
 * The index just past the value starting at `at` (after whitespace): a string, an object or array
 * (brackets counted outside strings), or a scalar running to the next delimiter. JSON.parse checks
 * what is inside later.
 */
function valueEnd(bytes: Buffer, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < bytes.length; i++) {
      const byte = bytes[i];
      if (byte === QUOTE) i = stringEnd(bytes, i) - 1;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
      else if ((byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    throw GIVE_UP;
  }
  let i = at;
  while (i < bytes.length && bytes[i] !== COMMA && bytes[i] !== CLOSE_OBJECT && bytes[i] !== CLOSE_ARRAY && !isSpace(bytes[i])) i++;
  if (i === at) throw GIVE_UP;
  return i;
}

/**
 * Where the element after a slice's worth of bytes probably starts: the next place past `from`
 * where the array's first element's opening bytes (its `{` through its first key and colon, such as
 * `{"line":`) follow a `}` and a comma. Inside a JSON string those bytes cannot occur (a quote there
 * is escaped), so a guess is wrong only when it lands in a nested array of objects whose first key
 * is the same; JSON.parse of the slice then refuses it (an object is left open) and the caller
 * scans for the cut instead. -1 when there is no such place.
 */
function likelyCut(bytes: Buffer, elementStart: Buffer, from: number): number {
  for (let at = bytes.indexOf(elementStart, from); at >= 0; at = bytes.indexOf(elementStart, at + 1)) {
    let comma = at - 1;
    while (comma > from && isSpace(bytes[comma])) comma--;
    if (bytes[comma] !== COMMA) continue;
    let close = comma - 1;
    while (close > from && isSpace(bytes[close])) close--;
    if (bytes[close] === CLOSE_OBJECT) return comma;
  }
  return -1;
}

/** The first element's opening bytes through its first key's colon, when it is an object; else undefined. */
function elementStartOf(bytes: Buffer, arrayStart: number): Buffer | undefined {
  const open = skipSpace(bytes, arrayStart + 1);
  if (bytes[open] !== OPEN_OBJECT) return undefined;
  const quote = skipSpace(bytes, open + 1);
  if (bytes[quote] !== QUOTE) return undefined;
  const keyEnd = stringEnd(bytes, quote);
  const colon = skipSpace(bytes, keyEnd);
  if (bytes[colon] !== COLON || bytes.subarray(quote, keyEnd).includes(BACKSLASH)) return undefined;
  return bytes.subarray(open, colon + 1);
}

/**
 * JSON.parse of the elements between `from` and `to` (the bytes at `from - 1` and `to` are the
 * commas or brackets around them), pushed to `into`. The text is decoded with brackets in place of
 * those two bytes, so it is one flat string, not a concatenation JSON.parse would first copy; the
 * bytes are put back before anything else reads them.
 */
function parseElements(bytes: Buffer, from: number, to: number, into: unknown[]): void {
  const before = bytes[from - 1];
  const after = bytes[to];
  bytes[from - 1] = OPEN_ARRAY;
  bytes[to] = CLOSE_ARRAY;
  let text: string;
  try {
    text = bytes.toString('utf8', from - 1, to + 1);
  } finally {
    bytes[from - 1] = before;
    bytes[to] = after;
  }
  const values = JSON.parse(text) as unknown[];
  for (let k = 0; k < values.length; k++) into.push(values[k]);
}

/**
 * Parses the array whose `[` is at `at`, a slice of elements at a time; pushes them to `into` and
 * returns the index just past its `]`. Slices end at the commas between elements, which are ASCII,
 * so no slice splits a character. Where a slice ends is guessed with a native search (likelyCut)
 * and proved by JSON.parse accepting the slice; the rest of the array, and any slice whose guess
 * failed, is found by scanning every byte (scanInSlices).
 */
function parseArrayInSlices(bytes: Buffer, at: number, into: unknown[]): number {
  let sliceStart = at + 1;
  const elementStart = elementStartOf(bytes, at);
  while (elementStart !== undefined && sliceStart + SLICE_BYTES < bytes.length) {
    const cut = likelyCut(bytes, elementStart, sliceStart + SLICE_BYTES);
    if (cut < 0) break;
    try {
      parseElements(bytes, sliceStart, cut, into);
    } catch {
      break; // a wrong guess: nothing was pushed (parseElements pushes only what JSON.parse accepted)
    }
    sliceStart = cut + 1;
  }
  return scanInSlices(bytes, sliceStart, sliceStart > at + 1, into);
}

/**
 * The rest of an array from `sliceStart` (just past its `[`, or past a comma between elements when
 * `split`), scanned byte by byte for the commas between elements and its closing `]`.
 */
function scanInSlices(bytes: Buffer, sliceStart: number, split: boolean, into: unknown[]): number {
  let depth = 0;
  const flush = (end: number) => {
    // After a split, an empty remainder would hide a trailing comma ("[a,]"), which is not JSON.
    if (split && skipSpace(bytes, sliceStart) === end) throw GIVE_UP;
    parseElements(bytes, sliceStart, end, into);
  };
  for (let i = sliceStart; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      // Strings are most of a body; this loop is stringEnd inlined: calling it measured slower.
      for (i++; i < bytes.length; i++) {
        const inner = bytes[i];
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
      if (i >= bytes.length) throw GIVE_UP;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth > 0) {
        depth--;
        continue;
      }
      if (byte !== CLOSE_ARRAY) throw GIVE_UP;
      flush(i);
      return i + 1;
    } else if (byte === COMMA && depth === 0 && i - sliceStart >= SLICE_BYTES) {
      flush(i);
      sliceStart = i + 1;
      split = true;
    }
  }
  throw GIVE_UP;
}

/**
 * The body parsed in pieces; throws when the pass cannot follow it (then JSON.parse of the whole
 * decides). Exported for the tests, which check that it follows every well-formed envelope.
 */
export function parseInPieces(bytes: Buffer): unknown {
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_OBJECT) throw GIVE_UP;
  at = skipSpace(bytes, at + 1);
  /** The body's text with its line arrays left empty; JSON.parse builds the object from it. */
  let skeleton = '{';
  const keys = new Set<string>();
  const arrays = new Map<string, unknown[]>();
  if (bytes[at] !== CLOSE_OBJECT) {
    for (;;) {
      if (bytes[at] !== QUOTE) throw GIVE_UP;
      const keyEnd = stringEnd(bytes, at);
      const keyText = bytes.toString('utf8', at, keyEnd);
      if (keyText.includes('\\')) throw GIVE_UP;
      const key = keyText.slice(1, -1);
      if (keys.has(key)) throw GIVE_UP; // JSON.parse keeps the last; leave that to it
      keys.add(key);
      at = skipSpace(bytes, keyEnd);
      if (bytes[at] !== COLON) throw GIVE_UP;
      at = skipSpace(bytes, at + 1);
      if (LINE_ARRAYS.has(key) && bytes[at] === OPEN_ARRAY) {
        const values: unknown[] = [];
        at = parseArrayInSlices(bytes, at, values);
        arrays.set(key, values);
        skeleton += `${keyText}:[]`;
      } else {
        const end = valueEnd(bytes, at);
        skeleton += `${keyText}:${bytes.toString('utf8', at, end)}`;
        at = end;
      }
      at = skipSpace(bytes, at);
      if (bytes[at] === COMMA) {
        skeleton += ',';
        at = skipSpace(bytes, at + 1);
        continue;
      }
      if (bytes[at] === CLOSE_OBJECT) break;
      throw GIVE_UP;
    }
  }
  if (skipSpace(bytes, at + 1) !== bytes.length) throw GIVE_UP;
  const body = JSON.parse(`${skeleton}}`) as Record<string, unknown>;
  for (const [key, values] of arrays) body[key] = values;
  return body;
}
