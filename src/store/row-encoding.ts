import type { StoredLine } from './types.js';

/**
 * Rows travel to the engine as TabSeparated, not JSONEachRow: ClickHouse parses TSV without
 * matching key names or JSON escapes, which made the same insert about a third faster
 * (docs/performance.md). The columns are named in the INSERT, so their order here is the only
 * contract and the table may gain columns freely.
 */
export const INSERT_COLUMNS = [
  'account', 'ts', 'id', 'batch_id', 'host', 'app', 'level', 'env', 'file', 'ip', 'mac', 'tags',
  'line', 'logtype', 'fields', 'meta', 'meta_indexed', 'meta_note', 'extra', 'size',
] as const;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPABLE = /[\\\t\n\r]/g;
const QUOTED_ESCAPABLE = /[\\\t\n\r']/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', "'": "\\'" };
const escapeChar = (char: string) => ESCAPES[char];

/** A string field in TSV's escaped form (backslash, tab and line breaks escaped). */
function field(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPABLE, escapeChar) : value;
}

/** An Array(String) field: a bracketed list of single-quoted strings. */
function list(values: string[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += `${i > 0 ? ',' : ''}'${values[i].replace(QUOTED_ESCAPABLE, escapeChar)}'`;
  return text + ']';
}

/** DateTime64(3) from Unix milliseconds, as decimal seconds (the unambiguous text form). */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** One row of INSERT_COLUMNS, tab-separated and newline-terminated. */
export function encodeRow(row: StoredLine): string {
  return (
    `${field(row.account)}\t${seconds(row.ts)}\t${row.id}\t${field(row.batch_id)}\t${field(row.host)}\t${field(row.app)}\t` +
    `${field(row.level)}\t${field(row.env)}\t${field(row.file)}\t${field(row.ip)}\t${field(row.mac)}\t${list(row.tags)}\t` +
    `${field(row.line)}\t${field(row.logtype)}\t${field(row.fields)}\t${field(row.meta)}\t${row.meta_indexed ? 'true' : 'false'}\t${field(row.meta_note ?? '')}\t` +
    `${field(row.extra)}\t${row.size}\n`
  );
}

export function encodeRows(rows: StoredLine[]): string {
  let text = '';
  for (const row of rows) text += encodeRow(row);
  return text;
}
