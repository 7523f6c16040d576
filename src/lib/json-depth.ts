/**
 * Whether a parsed JSON value nests deeper than `max` levels. Values from clients are checked
 * before anything recursive (JSON.stringify, validation) touches them, because a deep enough value
 * overflows the stack. This check recurses too, but never more than `max` + 1 calls deep: it stops
 * at the first value past the limit. It allocates nothing (ingest runs it on most lines' meta).
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  return deeperFrom(value, 1, max);
}

function deeperFrom(value: unknown, depth: number, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperFrom(value[i], depth + 1, max)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (Object.hasOwn(record, key) && deeperFrom(record[key], depth + 1, max)) return true;
  return false;
}
