import type { SqlExecutor } from './executor.js';

export const LOGS_TABLE = 'logs';

/**
 * The text bare search words are matched in: the line and its fields, newline-separated. The text
 * index is built on lower() of exactly this expression, so queries must use it verbatim to be
 * served by the index. Its JavaScript twin is searchText() in query/searchable.ts.
 */
export const SEARCH_TEXT =
  "concat(line, '\\n', host, '\\n', app, '\\n', level, '\\n', file, '\\n', env, '\\n', arrayStringConcat(tags, '\\n'), '\\n', if(meta_indexed, meta, ''))";

/**
 * The log table. Ordered by (account, ts, id) so every read is a time-range scan inside one
 * organisation; partitioned by day so retention can drop whole days. LowCardinality and ZSTD keep
 * a line near a quarter of its raw size; the text index on lower(SEARCH_TEXT) serves word and
 * phrase search. fsync_after_insert makes an acknowledged insert survive a power cut, not only a crash.
 */
const createLogsTable = `
CREATE TABLE IF NOT EXISTS ${LOGS_TABLE} (
  account      LowCardinality(String),
  ts           DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
  id           UInt64 CODEC(Delta, ZSTD(1)),
  batch_id     String CODEC(ZSTD(1)),
  host         LowCardinality(String),
  app          LowCardinality(String),
  level        LowCardinality(String),
  env          LowCardinality(String),
  file         LowCardinality(String),
  ip           LowCardinality(String),
  mac          LowCardinality(String),
  tags         Array(LowCardinality(String)),
  line         String CODEC(ZSTD(3)),
  logtype      LowCardinality(String),
  fields       String CODEC(ZSTD(3)),
  meta         String CODEC(ZSTD(3)),
  meta_indexed Bool,
  extra        String CODEC(ZSTD(3)),
  size         UInt32,
  INDEX search_text lower(${SEARCH_TEXT}) TYPE text(tokenizer = splitByNonAlpha)
)
ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY (account, ts, id)
SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`;

export async function ensureSchema(executor: SqlExecutor): Promise<void> {
  await executor.exec(createLogsTable);
}
