import { LIMITS } from './params.js';
import { clip, isObject } from './text.js';

/** Scalar source fields of the legacy agent (`pid`, `prival`) and agent v2 (`containerid`). */
const SCALAR_KEYS = ['pid', 'prival', 'containerid'] as const;
/** Agent v2's Kubernetes labels and annotations: string-to-string maps. */
const MAP_KEYS = ['label', 'annotation'] as const;

function scalar(value: unknown): string | number | boolean | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return clip(value, LIMITS.extraValue).toWellFormed();
  return undefined; // objects and arrays: no client sends them here
}

/**
 * A label or annotation map with scalar values, kept entry by entry while its JSON fits in
 * LIMITS.extraMapBytes; an entry that does not fit is left out (Kubernetes annotations such as
 * kubectl's last-applied-configuration can be large) and later, smaller ones still count.
 */
function boundedMap(value: unknown): Record<string, string | number | boolean> | undefined {
  if (!isObject(value)) return undefined;
  const kept: Record<string, string | number | boolean> = {};
  let bytes = 2; // {}
  let any = false;
  for (const [rawKey, rawValue] of Object.entries(value)) {
    if (rawKey.length + (typeof rawValue === 'string' ? rawValue.length : 0) > LIMITS.extraMapBytes) continue; // cannot fit
    const entryValue = typeof rawValue === 'string' ? rawValue.toWellFormed() : scalar(rawValue);
    if (entryValue === undefined) continue;
    const key = rawKey.toWellFormed();
    const cost = Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(entryValue)) + 2; // : and ,
    if (bytes + cost > LIMITS.extraMapBytes) continue;
    bytes += cost;
    kept[key] = entryValue;
    any = true;
  }
  return any ? kept : undefined;
}

/** The JSON text of a line's rarer source fields (StoredLine.extra), bounded; '' when none. */
export function readExtraFields(raw: Record<string, unknown>): string {
  // Most lines have none of them. Read by name, not through the key lists: a load by a variable key
  // goes through V8's generic lookup, and five of those on every line showed in profiles.
  if (raw.pid === undefined && raw.prival === undefined && raw.containerid === undefined && raw.label === undefined && raw.annotation === undefined) return '';
  let extra: Record<string, unknown> | undefined;
  for (const key of SCALAR_KEYS) {
    const value = scalar(raw[key]);
    if (value !== undefined) (extra ??= {})[key] = value;
  }
  for (const key of MAP_KEYS) {
    const value = boundedMap(raw[key]);
    if (value !== undefined) (extra ??= {})[key] = value;
  }
  return extra ? JSON.stringify(extra) : '';
}
