import { PROTECTED_JSON_KEYS, RESERVED_JSON_KEYS } from '../store/reserved-keys.js';

/**
 * What each root key is stored as: a reserved key's new name, null for a protected key (left out),
 * absent for the rest (kept). The new names are made once: a name made per line (`_${key}`) was a
 * new string for V8 to look up each time it became a property.
 */
const STORED_AS: Record<string, string | null> = Object.create(null);
for (const key of RESERVED_JSON_KEYS) STORED_AS[key] = `_${key}`;
for (const key of PROTECTED_JSON_KEYS) STORED_AS[key] = null;

export type JsonFields = Record<string, unknown>;

/**
 * Parses a line that ends in `}` as JSON, starting at its first `{`, so a JSON payload after a
 * plain prefix still counts. Returns the renamed root fields, or null for a text line.
 */
export function parseJsonLine(text: string): JsonFields | null {
  let end = text.length - 1;
  while (end >= 0 && (text[end] === ' ' || text[end] === '\n' || text[end] === '\r' || text[end] === '\t')) end--;
  if (end < 1 || text[end] !== '}') return null;
  const start = text.indexOf('{');
  if (start < 0 || start >= end) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  // A JSON line's own keys, in order (for...in allocates no entry pairs, unlike Object.entries).
  const source = parsed as JsonFields;
  const fields: JsonFields = {};
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const storedAs = STORED_AS[key];
    if (storedAs === null) continue;
    // An own "__proto__" (JSON.parse makes one) is kept as data: assigned, it would replace the
    // copy's prototype, vanish from the stored fields and lend its keys to lookups such as `level`.
    if (key === '__proto__') Object.defineProperty(fields, key, { value: source[key], enumerable: true, writable: true, configurable: true });
    else fields[storedAs ?? key] = source[key];
  }
  return fields;
}
