import type { LogLine } from '../api-client/client.js';

/**
 * Reading a line's fields the way the search language names them: built-in fields (host, app,
 * level, file, env, tag), `meta.<path>`, and the fields of a JSON line by dot path.
 */

/** Keys of a JSON line that hold its message, most usual first. */
const MESSAGE_KEYS = ['message', 'msg', 'log', 'MESSAGE', 'Message', 'text', 'event', 'body'];
export const BUILTIN_FIELDS = ['host', 'app', 'level', 'tag', 'file', 'env'];
const BUILTIN_VALUE: Record<string, (line: LogLine) => unknown> = {
  host: (line) => line._host,
  app: (line) => line._app,
  level: (line) => line.level,
  tag: (line) => line.tags ?? [],
  file: (line) => line._file ?? '',
  env: (line) => line.env ?? '',
};

const parsedCache = new WeakMap<LogLine, Record<string, unknown> | null>();
/** The line's JSON object, or null for a line that is not JSON. */
export function parsedJson(line: LogLine): Record<string, unknown> | null {
  if (parsedCache.has(line)) return parsedCache.get(line)!;
  let parsed: Record<string, unknown> | null = null;
  if (line._line.startsWith('{')) {
    try {
      const value = JSON.parse(line._line);
      if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value;
    } catch {
      parsed = null;
    }
  }
  parsedCache.set(line, parsed);
  return parsed;
}

export interface Leaf {
  /** The name a search uses for it: `user.id`, `meta.order.id`. */
  path: string;
  value: unknown;
}

/** Every leaf of an object by dot path; arrays are leaves (their values are searched one by one). */
export function leaves(value: unknown, prefix: string): Leaf[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) return [{ path: prefix, value }];
    return entries.flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key));
  }
  return [{ path: prefix, value }];
}

/** For a JSON line: its message and its other fields; null when the line is not JSON or has no message field. */
export function jsonMessage(line: LogLine): { message: string; fields: Leaf[] } | null {
  const parsed = parsedJson(line);
  if (!parsed) return null;
  const key = MESSAGE_KEYS.find((candidate) => typeof parsed[candidate] === 'string');
  if (!key) return null;
  const rest = { ...parsed };
  delete rest[key];
  return { message: parsed[key] as string, fields: leaves(rest, '') };
}

/** A field's value on a line, by its search name; undefined when the line does not have it. */
export function fieldValue(line: LogLine, name: string): unknown {
  if (BUILTIN_VALUE[name]) return BUILTIN_VALUE[name](line);
  const path = name.split('.');
  let value: unknown = path[0] === 'meta' ? line.meta : parsedJson(line);
  for (const key of path[0] === 'meta' ? path.slice(1) : path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function display(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) return value.join(', ');
  return JSON.stringify(value);
}

/**
 * Adds the field names lines use (for column choices and query hints) to `names`: meta paths and
 * JSON paths. Lines already read are skipped, so live tail's steady arrivals stay cheap.
 */
export function collectFields(lines: LogLine[], names: Set<string>, read: WeakSet<LogLine>): void {
  for (const line of lines) {
    if (read.has(line)) continue;
    read.add(line);
    if (line.meta !== undefined && line.meta !== null) for (const leaf of leaves(line.meta, 'meta')) names.add(leaf.path);
    const parsed = parsedJson(line);
    if (parsed) for (const leaf of leaves(parsed, '')) names.add(leaf.path);
  }
}

/** The class that colours a level, by how much it needs attention. */
export function levelClass(level: string): string {
  const upper = level.toUpperCase();
  if (['FATAL', 'CRITICAL', 'EMERGENCY', 'ALERT'].includes(upper)) return 'level-fatal';
  if (upper === 'ERROR' || upper === 'SEVERE') return 'level-error';
  if (upper === 'WARN') return 'level-warn';
  if (upper === 'INFO') return 'level-info';
  if (upper === 'DEBUG' || upper === 'TRACE') return 'level-debug';
  return 'level-other';
}

/** One row of an expanded line's table. */
export interface DetailRow {
  label: string;
  /** The name the search language finds it by; absent for fields it cannot search. */
  field?: string;
  value: unknown;
}

/** An expanded line's rows: its built-in fields, a JSON line's fields, its meta, then the rest; empty values left out. */
export function detailRows(line: LogLine): DetailRow[] {
  const found: DetailRow[] = [
    { label: 'timestamp', value: line.timestamp },
    { label: 'host', field: 'host', value: line._host },
    { label: 'app', field: 'app', value: line._app },
    { label: 'level', field: 'level', value: line.level },
    { label: 'file', field: 'file', value: line._file },
    { label: 'env', field: 'env', value: line.env },
    { label: 'tag', field: 'tag', value: line.tags?.length ? line.tags : '' },
  ];
  // A JSON line's fields by the names it was sent with (the search also knows the stored `_status` form by that name).
  const parsed = parsedJson(line);
  if (parsed) found.push(...leaves(parsed, '').map((leaf: Leaf) => ({ label: leaf.path, field: leaf.path, value: leaf.value })));
  if (line.meta !== undefined && line.meta !== null) found.push(...leaves(line.meta, 'meta').map((leaf) => ({ label: leaf.path, field: leaf.path, value: leaf.value })));
  found.push({ label: '_mezmo_line_size', field: '_mezmo_line_size', value: line._mezmo_line_size });
  for (const key of ['_logtype', '_ip', '_mac']) found.push({ label: key, value: line[key] });
  return found.filter((row) => row.value !== '' && row.value !== undefined && row.value !== null);
}

/** A row's values as text: an array of plain values is searched one by one, so each is its own value to filter on. */
export function rowValues(value: unknown): string[] {
  return Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null) ? value.map(display) : [display(value)];
}
