import type { SqlExecutor, SqlParams } from './executor.js';
import { INSERT_COLUMNS } from './row-encoding.js';
import type { LogTables } from './tables.js';
import type { StoredLine } from './types.js';

/*
 * Every stored line, whatever its organisation or retention, in the table's own order (account,
 * ts, id): for copying a whole store elsewhere (cluster/copy-log-lines.ts). Each batch starts
 * after the last line of the one before, so a batch is one bounded read of the primary key and
 * nothing is held between batches.
 */

/** Where a line sits in the table's order. */
export interface StoredPosition {
  account: string;
  /** Unix milliseconds. */
  ts: number;
  /** Decimal text: ids are 64-bit. */
  id: string;
}

// ts_ms, not ts: an alias named ts would shadow the column in WHERE and ORDER BY.
const SELECTED = INSERT_COLUMNS.map((column) => (column === 'ts' ? 'toUnixTimestamp64Milli(ts) AS ts_ms' : column)).join(', ');

/** Ids quoted, so they reach JavaScript exactly. */
const EXACT_IDS = ' SETTINGS output_format_json_quote_64bit_integers = 1';

const positionParams = (name: string, position: StoredPosition): SqlParams => ({
  [`${name}Account`]: position.account,
  [`${name}Ts`]: position.ts,
  [`${name}Id`]: position.id,
});

/**
 * Lines strictly after (or, with `inclusive`, from) a position, spelled out column by column
 * rather than as a tuple comparison, so the engine's key analysis narrows the read to the range.
 */
function fromPosition(name: string, inclusive: boolean): string {
  const account = `{${name}Account:String}`;
  const ts = `fromUnixTimestamp64Milli({${name}Ts:Int64})`;
  return `account >= ${account} AND (account > ${account} OR ts > ${ts} OR (ts = ${ts} AND id ${inclusive ? '>=' : '>'} {${name}Id:UInt64}))`;
}

function untilPosition(name: string): string {
  const account = `{${name}Account:String}`;
  const ts = `fromUnixTimestamp64Milli({${name}Ts:Int64})`;
  return `account <= ${account} AND (account < ${account} OR ts < ${ts} OR (ts = ${ts} AND id <= {${name}Id:UInt64}))`;
}

/** Up to `limit` lines after `after` (from the first line without it), in the table's order. */
export async function linesAfter(executor: SqlExecutor, tables: LogTables, after: StoredPosition | undefined, limit: number): Promise<StoredLine[]> {
  const params: SqlParams = { limit, ...(after ? positionParams('after', after) : {}) };
  const where = after ? `WHERE ${fromPosition('after', false)}` : '';
  const rows = await executor.rows<StoredLine & { ts_ms: string }>(
    `SELECT ${SELECTED} FROM ${tables.reads} ${where} ORDER BY account, ts, id LIMIT {limit:UInt32}${EXACT_IDS}`,
    params,
  );
  return rows.map(({ ts_ms, ...line }) => ({ ...line, ts: Number(ts_ms) }));
}

/** How many lines the store holds. */
export async function countStoredLines(executor: SqlExecutor, tables: LogTables): Promise<number> {
  const [{ lines }] = await executor.rows<{ lines: string }>(`SELECT count() AS lines FROM ${tables.reads}`);
  return Number(lines);
}

/** The position of the store's last line in the table's order; undefined when it has none. */
export async function lastPosition(executor: SqlExecutor, tables: LogTables): Promise<StoredPosition | undefined> {
  const [row] = await executor.rows<{ account: string; ts_ms: string; id: string }>(
    `SELECT account, toUnixTimestamp64Milli(ts) AS ts_ms, id FROM ${tables.reads} ORDER BY account DESC, ts DESC, id DESC LIMIT 1${EXACT_IDS}`,
  );
  return row ? { account: row.account, ts: Number(row.ts_ms), id: row.id } : undefined;
}

/** The ids of the lines stored from `first` to `last` inclusive, in the table's order. */
export async function idsBetween(executor: SqlExecutor, tables: LogTables, first: StoredPosition, last: StoredPosition): Promise<Set<string>> {
  const rows = await executor.rows<{ id: string }>(
    `SELECT id FROM ${tables.reads} WHERE ${fromPosition('first', true)} AND ${untilPosition('last')}${EXACT_IDS}`,
    { ...positionParams('first', first), ...positionParams('last', last) },
  );
  return new Set(rows.map((row) => row.id));
}
