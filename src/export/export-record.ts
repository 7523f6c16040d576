import type { StoredLine } from '../store/types.js';
import type { ExportRecord, MetaUnindexedReason } from '../wire/types.js';

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The exported form of a stored line (spec §2.2 plus level, env, tags and meta). Fields parsed from
 * a JSON line appear at the top level, as in the viewer, but never replace a built-in field.
 */
export function exportRecord(row: StoredLine): ExportRecord {
  const record: ExportRecord = {
    ...parseObject(row.fields),
    ...parseObject(row.extra),
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
  if (row.meta) record.meta = parseObject(row.meta) ?? row.meta;
  // The viewer shows a badge saying why this line's meta cannot be searched as fields.
  if (row.meta && !row.meta_indexed) record._metaUnindexed = (row.meta_note || 'unknown') as MetaUnindexedReason;
  return record;
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
