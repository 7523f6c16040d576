/**
 * Log tables for the cost and lever benchmarks: today's table (src/store/schema.ts's columns, with
 * its codecs and settings) with one thing changed at a time: the search index, the codec of `line`,
 * the sort key, the granule, merge and part settings, fsync.
 */
import { INDEXED_TEXT, LOGS_COLUMN_LIST, LOGS_TABLE, SEARCH_TEXT, TEXT_INDEX } from '../../src/store/schema.js';

export type SearchIndex =
  /** `notEmptyFields`: the index expression with notEmpty(fields) for fields != '' (see FIXED_INDEXED_TEXT). */
  | { kind: 'text'; notEmptyFields?: boolean }
  /**
   * For splitting the text index's cost (text-index.ts): `expression` only evaluates INDEXED_TEXT
   * for every row (a minmax index over it keeps two strings a granule); `lowered` is a text index
   * over lower(SEARCH_TEXT), without the pass that blanks non-ASCII runs.
   */
  | { kind: 'expression' }
  | { kind: 'text-lowered' }
  | { kind: 'none' }
  /** tokenbf_v1(bytes, hashes, seed) per `granularity` granules. */
  | { kind: 'tokenbf'; bytes: number; hashes: number; granularity: number }
  /** ngrambf_v1(n, bytes, hashes, seed) per `granularity` granules. */
  | { kind: 'ngrambf'; n: number; bytes: number; hashes: number; granularity: number };

export interface TableDesign {
  index: SearchIndex;
  lineCodec?: string;
  orderBy?: string;
  fsync?: boolean;
  /** MergeTree settings beyond today's (merge_selector_base = 10 unless given). */
  settings?: Record<string, string | number>;
}

/**
 * INDEXED_TEXT as the engine can match it. The engine rewrites `fields != ''` in a query to
 * `notEmpty(fields)` but keeps the index's expression as written, so since SEARCH_TEXT gained that
 * test, no query's expression equals the index's and the text index is never used (EXPLAIN
 * indexes = 1 lists no skip index): every word search tokenizes every row. Written with
 * notEmpty, queries compiled by src/query/to-sql.ts match it again.
 */
export const FIXED_INDEXED_TEXT = INDEXED_TEXT.replace("fields != ''", 'notEmpty(fields)');

export function indexClause(index: SearchIndex): string {
  switch (index.kind) {
    case 'text':
      return `, INDEX ${TEXT_INDEX} ${index.notEmptyFields ? FIXED_INDEXED_TEXT : INDEXED_TEXT} TYPE text(tokenizer = splitByNonAlpha, posting_list_codec = 'bitpacking')`;
    case 'expression':
      return `, INDEX search_expression ${INDEXED_TEXT} TYPE minmax`;
    case 'text-lowered':
      return `, INDEX ${TEXT_INDEX} lower(${SEARCH_TEXT}) TYPE text(tokenizer = splitByNonAlpha, posting_list_codec = 'bitpacking')`;
    case 'none':
      return '';
    case 'tokenbf':
      return `, INDEX search_bloom ${FIXED_INDEXED_TEXT} TYPE tokenbf_v1(${index.bytes}, ${index.hashes}, 0) GRANULARITY ${index.granularity}`;
    case 'ngrambf':
      return `, INDEX search_bloom ${FIXED_INDEXED_TEXT} TYPE ngrambf_v1(${index.n}, ${index.bytes}, ${index.hashes}, 0) GRANULARITY ${index.granularity}`;
  }
}

export function describeIndex(index: SearchIndex): string {
  switch (index.kind) {
    case 'text':
      return index.notEmptyFields ? 'text index, expression the engine matches' : 'text index (today)';
    case 'expression':
      return 'the index expression evaluated (minmax), no text index';
    case 'text-lowered':
      return 'text index over lower(SEARCH_TEXT), non-ASCII not blanked';
    case 'none':
      return 'no index';
    case 'tokenbf':
      return `tokenbf_v1(${index.bytes}, ${index.hashes}) GRANULARITY ${index.granularity}`;
    case 'ngrambf':
      return `ngrambf_v1(${index.n}, ${index.bytes}, ${index.hashes}) GRANULARITY ${index.granularity}`;
  }
}

export function createTable(design: TableDesign): string {
  const fsync = design.fsync ?? true;
  const settings: Record<string, string | number> = {
    fsync_after_insert: fsync ? 1 : 0,
    fsync_part_directory: fsync ? 1 : 0,
    merge_selector_base: 10,
    ...design.settings,
  };
  const columns = design.lineCodec ? LOGS_COLUMN_LIST.replace(/(\n\s*line\s+String CODEC\()[^)]*\)\)/, `$1${design.lineCodec})`) : LOGS_COLUMN_LIST;
  return `
CREATE TABLE ${LOGS_TABLE} (${columns}
  ${indexClause(design.index)}
)
ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY ${design.orderBy ?? '(account, ts, id)'}
SETTINGS ${Object.entries(settings).map(([name, value]) => `${name} = ${value}`).join(', ')}`;
}
