import type { LogLine } from '../api-client/client.js';
import { searchName } from '../../query/field-names.js';
import { isFieldName, resolveField } from '../../query/parser.js';
import { EXPORT_RECORD_KEYS, EXTRA_RECORD_KEYS } from '../../wire/export-record-keys.js';

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

const RECORD_KEYS = new Set(EXPORT_RECORD_KEYS);
const EXTRA_KEYS = new Set(EXTRA_RECORD_KEYS);

const parsedCache = new WeakMap<LogLine, Record<string, unknown> | null>();
/** The line's text parsed as a JSON object from its first brace (as ingest reads it), or null for a line that is not JSON. */
export function parsedJson(line: LogLine): Record<string, unknown> | null {
  if (parsedCache.has(line)) return parsedCache.get(line)!;
  let parsed: Record<string, unknown> | null = null;
  const start = line._line.indexOf('{');
  if (start >= 0) {
    try {
      const value = JSON.parse(line._line.slice(start));
      if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value;
    } catch {
      parsed = null;
    }
  }
  parsedCache.set(line, parsed);
  return parsed;
}

const storedCache = new WeakMap<LogLine, Record<string, unknown>>();
/**
 * The fields stored with a line, by their stored names (`status` as `_status`): what a JSON line
 * carried, what a format parser (nginx, logfmt...) or a custom parsing rule extracted. The export
 * record lays them at its top level beside its own keys (wire/export-record-keys.ts); they are
 * read from there, not from the line's text, which for a parsed text line holds no JSON at all.
 *
 * An agent's extra keys (pid, prival...) sit at the same level and field searches do not read
 * them; a key of that name counts as a field only on a line whose JSON text has it.
 */
export function storedFields(line: LogLine): Record<string, unknown> {
  const cached = storedCache.get(line);
  if (cached) return cached;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(line)) {
    if (RECORD_KEYS.has(key)) continue;
    if (EXTRA_KEYS.has(key) && !Object.hasOwn(parsedJson(line) ?? {}, key)) continue;
    fields[key] = line[key];
  }
  storedCache.set(line, fields);
  return fields;
}

/** One field of a line, by the name search finds it by (`label` when none does) and its value. */
export interface Leaf {
  /** The search name (`status`, `user.id`, `meta.order.id`), or the stored path when the language has no name for it. */
  path: string;
  /** Whether `path` is a name the search language finds this field by. */
  searchable: boolean;
  value: unknown;
}

/** Every leaf of an object by key path; arrays and empty objects are leaves (an array's values are searched one by one). */
function keyPaths(value: unknown, prefix: string[]): Array<{ keys: string[]; value: unknown }> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) return prefix.length ? [{ keys: prefix, value }] : [];
    return entries.flatMap(([key, child]) => keyPaths(child, [...prefix, key]));
  }
  return prefix.length ? [{ keys: prefix, value }] : [];
}

/** A line's stored fields (storedFields) or its meta as leaves, by search names. */
export function fieldLeaves(value: unknown, source: 'fields' | 'meta'): Leaf[] {
  return keyPaths(value, []).map(({ keys, value: leafValue }) => {
    const name = searchName(source, keys);
    return { path: name ?? [...(source === 'meta' ? ['meta'] : []), ...keys].join('.'), searchable: name !== null, value: leafValue };
  });
}

/** The leaves of a line's stored fields, by search names. */
export const lineFields = (line: LogLine): Leaf[] => fieldLeaves(storedFields(line), 'fields');

/**
 * A line's text as the list shows it: for a JSON line with a message field, that message; else
 * the line itself. Then the line's other fields, shown as quiet key=value chips.
 */
export function lineText(line: LogLine): { message: string; fields: Leaf[]; json: boolean } {
  const stored = storedFields(line);
  const key = line._logtype === 'json' ? MESSAGE_KEYS.find((candidate) => typeof stored[candidate] === 'string') : undefined;
  if (key === undefined) return { message: line._line, fields: lineFields(line), json: false };
  const rest = { ...stored };
  delete rest[key];
  return { message: stored[key] as string, fields: fieldLeaves(rest, 'fields'), json: true };
}

/** A field's value on a line, by its search name; undefined when the line does not have it. */
export function fieldValue(line: LogLine, name: string): unknown {
  if (BUILTIN_VALUE[name]) return BUILTIN_VALUE[name](line);
  if (!isFieldName(name)) return undefined;
  const field = resolveField(name);
  if (field.kind === 'builtin') return BUILTIN_VALUE[field.name](line);
  if (field.kind === 'size') return line._mezmo_line_size;
  let value: unknown = field.kind === 'meta' ? line.meta : storedFields(line);
  for (const key of field.path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
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
    for (const leaf of [...lineFields(line), ...fieldLeaves(line.meta, 'meta')]) if (leaf.searchable) names.add(leaf.path);
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
  // The line's stored fields by the names search finds them by, whatever format it arrived in.
  const row = (leaf: Leaf): DetailRow => ({ label: leaf.path, ...(leaf.searchable ? { field: leaf.path } : {}), value: leaf.value });
  found.push(...lineFields(line).map(row));
  // Meta kept as text only (a type clash, the daily cap...) is shown, not offered as filters.
  found.push(...fieldLeaves(line.meta, 'meta').map((leaf) => row(line._metaUnindexed ? { ...leaf, searchable: false } : leaf)));
  if (typeof line.meta !== 'object') found.push({ label: 'meta', value: line.meta });
  found.push({ label: '_mezmo_line_size', field: '_mezmo_line_size', value: line._mezmo_line_size });
  for (const key of ['_logtype', '_ip', '_mac']) found.push({ label: key, value: line[key] });
  // An agent's extra keys are shown, not offered as filters: field searches do not read them.
  const stored = storedFields(line);
  for (const key of EXTRA_RECORD_KEYS) {
    if (!Object.hasOwn(stored, key)) found.push(...keyPaths(line[key], [key]).map((leaf) => ({ label: leaf.keys.join('.'), value: leaf.value })));
  }
  return found.filter((row) => row.value !== '' && row.value !== undefined && row.value !== null);
}

/** A row's values as text: an array of plain values is searched one by one, so each is its own value to filter on. */
export function rowValues(value: unknown): string[] {
  return Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null) ? value.map(display) : [display(value)];
}
