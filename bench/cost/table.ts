/**
 * Log tables for the cost and lever benchmarks: today's table (src/store/schema.ts, same columns,
 * codecs and settings) with one thing changed at a time: the search index, the codec of `line`,
 * the sort key, the granule, merge and part settings, fsync.
 */
import { INDEXED_TEXT, LOGS_TABLE, TEXT_INDEX } from '../../src/store/schema.js';

export type SearchIndex =
  /** `notEmptyFields`: the index expression with notEmpty(fields) for fields != '' (see FIXED_INDEXED_TEXT). */
  | { kind: 'text'; notEmptyFields?: boolean }
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
  return `
CREATE TABLE ${LOGS_TABLE} (
  account      LowCardinality(String),
  ts           DateTime64(3, 'UTC') CODEC(Delta, LZ4),
  id           UInt64 CODEC(Delta, LZ4),
  batch_id     String CODEC(ZSTD(1)),
  host         LowCardinality(String),
  app          LowCardinality(String),
  level        LowCardinality(String),
  env          LowCardinality(String),
  file         LowCardinality(String),
  ip           LowCardinality(String),
  mac          LowCardinality(String),
  tags         Array(LowCardinality(String)),
  line         String CODEC(${design.lineCodec ?? 'ZSTD(3)'}),
  logtype      LowCardinality(String),
  fields       String CODEC(ZSTD(3)),
  meta         String CODEC(ZSTD(3)),
  meta_indexed Bool,
  extra        String CODEC(ZSTD(3)),
  size         UInt32 CODEC(T64, LZ4)
  ${indexClause(design.index)}
)
ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY ${design.orderBy ?? '(account, ts, id)'}
SETTINGS ${Object.entries(settings).map(([name, value]) => `${name} = ${value}`).join(', ')}`;
}
