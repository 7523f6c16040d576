import type { StoredLine } from './types.js';
import type { ExportRecord, MetaUnindexedReason } from '../wire/types.js';

/** Stored JSON text (meta, fields) parsed; undefined when empty or not JSON. */
export function parseStoredJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A stored JSON object's text parsed (a line's fields, its extra keys); undefined otherwise. */
function parseObject(text: string): Record<string, unknown> | undefined {
  const value = parseStoredJson(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The exported form of a stored line (spec §2.2 plus level, env, tags and meta). Fields parsed from
 * a JSON line appear at the top level, as in the viewer, but never replace a built-in field.
 */
export function exportRecord(row: StoredLine): ExportRecord {
  // Built as one literal, then laid over the parsed fields: a literal that spreads objects first
  // is built key by key at run time, which made this 7 µs a line, most of an export's time.
  const record: ExportRecord = {
    _id: row.id,
    _ts: row.ts,
    timestamp: new Date(row.ts).toISOString(),
    _line: row.line,
    _app: row.app,
    _host: row.host,
    _file: row.file,
    _ip: row.ip,
    _mac: row.mac,
    _account: row.account,
    _bid: row.batch_id,
    _ingester: 'logstead',
    _logtype: row.logtype,
    _mezmo_line_size: row.size,
    level: row.level,
    env: row.env,
    tags: row.tags,
  };
  const fields = parseObject(row.fields);
  const extra = parseObject(row.extra);
  // Object.assign keeps a parsed key's place when a built-in replaces its value, as a spread did.
  const exported: ExportRecord = fields || extra ? Object.assign(fields ?? {}, extra, record) : record;
  if (row.meta) exported.meta = parseStoredJson(row.meta) ?? row.meta;
  // The viewer shows a badge saying why this line's meta cannot be searched as fields.
  if (row.meta && !row.meta_indexed) exported._metaUnindexed = (row.meta_note || 'unknown') as MetaUnindexedReason;
  return exported;
}

const records = new WeakMap<StoredLine, ExportRecord>();

/**
 * The exported record of a line just ingested, built once however many live tails and alert
 * channels take it. Callers must not change the record they get.
 */
export function sharedExportRecord(row: StoredLine): ExportRecord {
  let record = records.get(row);
  if (!record) records.set(row, (record = exportRecord(row)));
  return record;
}
