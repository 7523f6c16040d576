import { LIMITS } from '../wire/limits.js';
import { clip, isObject } from './text.js';

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

/**
 * The JSON text of a line's rarer source fields (StoredLine.extra), bounded; '' when none: the
 * legacy agent's scalar `pid` and `prival`, agent v2's `containerid`, and its Kubernetes `label`
 * and `annotation` maps. Read by name: a load by a variable key goes through V8's generic lookup,
 * and five of those on every line showed in profiles. JSON.stringify leaves out the absent ones.
 */
export function readExtraFields(raw: Record<string, unknown>): string {
  const pid = scalar(raw.pid);
  const prival = scalar(raw.prival);
  const containerid = scalar(raw.containerid);
  const label = boundedMap(raw.label);
  const annotation = boundedMap(raw.annotation);
  // Most lines have none: no object is made for them.
  if (pid === undefined && prival === undefined && containerid === undefined && label === undefined && annotation === undefined) return '';
  return JSON.stringify({ pid, prival, containerid, label, annotation });
}
