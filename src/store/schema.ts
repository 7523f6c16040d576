import type { SqlExecutor } from './executor.js';
import { LOGS_TABLE, type LogTables, MIGRATIONS_TABLE, sqlString } from './tables.js';

export { LOGS_TABLE } from './tables.js';

/**
 * The text bare search words are matched in: the line and its fields, newline-separated, then,
 * for a JSON line written with \u or \/ escapes, its parsed fields as JSON.stringify wrote them
 * (without those escapes), so `café` finds `caf\u00e9` (query/searchable.ts says why). Its JavaScript
 * twin is searchText() in query/searchable.ts.
 */
export const SEARCH_TEXT =
  "concat(line, '\\n', host, '\\n', app, '\\n', level, '\\n', file, '\\n', env, '\\n', arrayStringConcat(tags, '\\n'), '\\n', if(meta_indexed, meta, ''), " +
  "if(notEmpty(fields) AND (position(line, '\\\\u') > 0 OR position(line, '\\\\/') > 0), concat('\\n', fields), ''))";

/**
 * What the text index tokenizes: SEARCH_TEXT lower-cased (ASCII only, as search folds case) with
 * every run of non-ASCII characters turned into a space. The tokenizer then yields exactly the
 * search language's words (maximal runs of ASCII letters and digits), so "a word starts with p"
 * is "some index token starts with p": query/to-sql.ts relies on this to answer words from the
 * index alone. Queries must repeat this expression verbatim for the index to serve them.
 */
export const INDEXED_TEXT = `replaceRegexpAll(lower(${SEARCH_TEXT}), '[^\\\\x00-\\\\x7F]+', ' ')`;

/** The text index's name, for reading its token dictionary (mergeTreeTextIndex). */
export const TEXT_INDEX = 'search_tokens';

/** Bit-packed posting lists make the index a fifth smaller at the same build and query cost. */
const TEXT_INDEX_TYPE = "text(tokenizer = splitByNonAlpha, posting_list_codec = 'bitpacking')";

/**
 * Columns of a byte or two a row whose values follow no order (an app, a level, a size): ZSTD(1)
 * stores them in about half of what the default LZ4 does (31 → 17.5 MiB over 10 million of
 * bench/search's lines, 1.7% of the table), and a GROUP BY level reads them as fast
 * (bench/results/2026-11-27-session8-before-after.md).
 */
const SMALL_COLUMN_CODECS = { app: 'ZSTD(1)', level: 'ZSTD(1)', logtype: 'ZSTD(1)', meta_indexed: 'ZSTD(1)', size: 'T64, ZSTD(1)' };

/**
 * The log table's columns and index, written once for every engine. Ordered by (account, ts, id)
 * so every read is a time-range scan inside one organisation; partitioned by day so retention can
 * drop whole days. LowCardinality and ZSTD keep the stored columns small. ts and id use Delta with
 * LZ4, not ZSTD: every search reads ts, and LZ4 decodes it about four times faster (and, after
 * Delta, about as small). The text index on INDEXED_TEXT serves word and phrase search.
 * The columns alone are exported: bench/cost builds tables of other designs from them.
 */
export const LOGS_COLUMN_LIST = `
  account      LowCardinality(String),
  ts           DateTime64(3, 'UTC') CODEC(Delta, LZ4),
  id           UInt64 CODEC(Delta, LZ4),
  batch_id     String CODEC(ZSTD(1)),
  host         LowCardinality(String),
  app          LowCardinality(String) CODEC(${SMALL_COLUMN_CODECS.app}),
  level        LowCardinality(String) CODEC(${SMALL_COLUMN_CODECS.level}),
  env          LowCardinality(String),
  file         LowCardinality(String),
  ip           LowCardinality(String),
  mac          LowCardinality(String),
  tags         Array(LowCardinality(String)),
  line         String CODEC(ZSTD(3)),
  logtype      LowCardinality(String) CODEC(${SMALL_COLUMN_CODECS.logtype}),
  fields       String CODEC(ZSTD(3)),
  meta         String CODEC(ZSTD(3)),
  meta_indexed Bool CODEC(${SMALL_COLUMN_CODECS.meta_indexed}),
  meta_note    LowCardinality(String) DEFAULT '',
  extra        String CODEC(ZSTD(3)),
  size         UInt32 CODEC(${SMALL_COLUMN_CODECS.size})`;

const LOGS_COLUMNS = `${LOGS_COLUMN_LIST},
  INDEX ${TEXT_INDEX} ${INDEXED_TEXT} TYPE ${TEXT_INDEX_TYPE}
`;

/**
 * Merged-away parts go within seconds. The engine keeps a merge's source parts on disk after it
 * (`old_parts_lifetime`, 8 minutes on a ClickHouse server) in case the merged part was not yet
 * on disk at a power cut, and removes them from a cleanup pass that backs off to every 5 minutes;
 * after a fleet's load the folder held 2-3 times its active parts for minutes, which a user sees
 * and LOGSTEAD_MAX_DISK_BYTES does not count (issue 42). Merged parts are fsynced here like
 * inserted ones (min_rows_to_fsync_after_merge), so the sources protect nothing: they are kept 5 s
 * (a query still reading one keeps it regardless) and looked for every 5 to 10 s.
 */
export const PART_CLEANUP_SETTINGS =
  'min_rows_to_fsync_after_merge = 1, old_parts_lifetime = 5, cleanup_delay_period = 5, cleanup_delay_period_random_add = 2, max_cleanup_delay_period = 10';

/**
 * A merge holds, for every part it reads, a decompressed block of each column the text index is
 * built from, and the line, meta and fields columns filled 1 MiB blocks (a granule of lines is
 * about 2 MB): a merge of ten parts tracked 230-240 MiB in the engine, most of a fleet's peak above
 * what the server holds between merges (issue 42). Blocks of at most 256 KiB halve that (124 MiB),
 * at the same CPU and parts. A column of under 32 bytes a row fills less than 256 KiB in a
 * granule, so its blocks (ts, level and the other columns that histograms read) are unchanged.
 */
export const COMPRESS_BLOCK_SETTINGS = 'max_compress_block_size = 262144';

/**
 * Every merge vertical: the engine merges the sorting key's columns first, then the other columns
 * one at a time, instead of reading a block of every column of every source part at once (its
 * default when the parts merged hold under 131,072 rows together, as a fleet's first merges of
 * 16,000-row parts do). Under the fleet of 32 the merges then held 103-110 MiB at most against
 * 127-139, and the server peaked at 588-601 MiB against 622-639 in three interleaved pairs, at the
 * same CPU a line, parts and disk; searches over 10 M lines merged this way took the same
 * (issue 42; docs/performance.md, "Every merge vertical").
 */
export const VERTICAL_MERGE_SETTINGS = 'vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1';

/**
 * Parts merged in steps of 25 (the engine's default is 5), so that each line is rewritten fewer
 * times, and its text index rebuilt fewer times, on its way to a large part. Merges are the larger
 * half of a line's engine CPU: at the fleet's 16,000-row inserts the engine alone took about
 * 1.8 µs a row less than with steps of 10, which it had used since its first release (10 against 5
 * had taken the merges from 70 % of a core to 56 % under sustained ingest). More parts stay
 * between merges; docs/performance.md ("Merges in steps of 25") has what that costs the searches.
 */
export const MERGE_STEP_SETTINGS = 'merge_selector_base = 25';

/** fsync_after_insert makes an acknowledged insert survive a power cut, not only a crash. */
const LOGS_LAYOUT = `PARTITION BY toDate(ts)
ORDER BY (account, ts, id)
SETTINGS fsync_after_insert = 1, fsync_part_directory = 1, ${MERGE_STEP_SETTINGS}, ${PART_CLEANUP_SETTINGS}, ${COMPRESS_BLOCK_SETTINGS}, ${VERTICAL_MERGE_SETTINGS}`;

/**
 * On a cluster, lines go to a shard by a hash of their id: spread evenly whatever the
 * organisation, and the same lines always to the same shard, so a retried insert repeats the
 * same blocks there, which replicated tables deduplicate.
 */
const SHARDING_KEY = 'cityHash64(id)';

/**
 * The statements that create the log table. Embedded: one MergeTree table. On a cluster: the
 * table on every node as ReplicatedMergeTree (its Keeper path and replica name from the server's
 * {shard} and {replica} macros), and the Distributed table over it in the given database.
 */
export function createLogTables(tables: LogTables, database: string): string[] {
  if (tables.cluster === undefined) {
    return [`CREATE TABLE IF NOT EXISTS ${LOGS_TABLE} (${LOGS_COLUMNS})\nENGINE = MergeTree\n${LOGS_LAYOUT}`];
  }
  return [
    `CREATE TABLE IF NOT EXISTS ${tables.stored}${tables.onCluster} (${LOGS_COLUMNS})\n` +
      `ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/${tables.stored}', '{replica}')\n${LOGS_LAYOUT}`,
    `CREATE TABLE IF NOT EXISTS ${tables.reads}${tables.onCluster} AS ${tables.stored}\n` +
      `ENGINE = Distributed(${sqlString(tables.cluster)}, ${sqlString(database)}, ${sqlString(tables.stored)}, ${SHARDING_KEY})`,
  ];
}

/**
 * The table of applied migrations. On a cluster it is replicated to every node (its Keeper path
 * has no {shard}), so each node sees the same versions.
 */
export function createMigrationsTable(tables: LogTables): string {
  const engine =
    tables.cluster === undefined ? 'MergeTree' : `ReplicatedMergeTree('/clickhouse/tables/{database}/${MIGRATIONS_TABLE}', '{replica}')`;
  return `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE}${tables.onCluster} (
  version    UInt32,
  name       String,
  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ${engine}
ORDER BY version`;
}

/**
 * A migration step giving tables from before them these table settings (only the table's settings
 * change; parts already written keep what they were written with until a merge rewrites them).
 */
export function setTableSettings(settings: string): (executor: SqlExecutor, tables: LogTables) => Promise<void> {
  return (executor, tables) => executor.exec(`ALTER TABLE ${tables.stored}${tables.onCluster} MODIFY SETTING ${settings}`);
}

/**
 * Tables from before SMALL_COLUMN_CODECS get them. Only the table's metadata changes (a codec-only
 * MODIFY COLUMN runs no mutation): parts keep the codec they were written with until a merge
 * rewrites them, and a day already merged may keep it until retention drops it.
 */
export async function compressSmallColumns(executor: SqlExecutor, tables: LogTables): Promise<void> {
  const changes = Object.entries(SMALL_COLUMN_CODECS).map(([column, codec]) => `MODIFY COLUMN ${column} CODEC(${codec})`);
  await executor.exec(`ALTER TABLE ${tables.stored}${tables.onCluster} ${changes.join(', ')}`);
}

/**
 * Why a line's meta is unindexed (type conflict, daily cap...); tables from before it gain it empty,
 * and their lines read as reason unknown. On a cluster the Distributed table gains it too.
 */
export async function addMetaNote(executor: SqlExecutor, tables: LogTables): Promise<void> {
  const column = `meta_note LowCardinality(String) DEFAULT ''`;
  await executor.exec(`ALTER TABLE ${tables.stored}${tables.onCluster} ADD COLUMN IF NOT EXISTS ${column} AFTER meta_indexed`);
  if (tables.reads !== tables.stored) await executor.exec(`ALTER TABLE ${tables.reads}${tables.onCluster} ADD COLUMN IF NOT EXISTS ${column} AFTER meta_indexed`);
}

/**
 * Until when a line restored from the archive (src/archive) is kept and read although older than
 * its organisation's retention; 0 for every line that was ingested.
 */
export async function addRestoredUntil(executor: SqlExecutor, tables: LogTables): Promise<void> {
  const column = `restored_until DateTime64(3, 'UTC') DEFAULT 0 CODEC(Delta, LZ4)`;
  await executor.exec(`ALTER TABLE ${tables.stored}${tables.onCluster} ADD COLUMN IF NOT EXISTS ${column}`);
  if (tables.reads !== tables.stored) await executor.exec(`ALTER TABLE ${tables.reads}${tables.onCluster} ADD COLUMN IF NOT EXISTS ${column}`);
}

/**
 * Brings the text index up to date: one on an older expression (tables made before INDEXED_TEXT
 * had one named search_text on lower(SEARCH_TEXT); later ones one on an earlier SEARCH_TEXT) is
 * replaced and rebuilt for every stored part before the server starts answering (words are
 * answered from the index's tokens, so a part without them would hide its lines).
 */
export async function upgradeTextIndex(executor: SqlExecutor, tables: LogTables): Promise<void> {
  // Compared as the engine formats them, as it stores the expression reformatted.
  const indexes = await executor.rows<{ name: string; current: number }>(
    `SELECT name, formatQuerySingleLine(concat('SELECT ', expr)) = formatQuerySingleLine(concat('SELECT ', {expected:String})) AS current
       FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = {table:String}`,
    { table: tables.stored, expected: INDEXED_TEXT },
  );
  const textIndex = indexes.find((index) => index.name === TEXT_INDEX);
  const upToDate = textIndex !== undefined && Number(textIndex.current) === 1;
  const alter = `ALTER TABLE ${tables.stored}${tables.onCluster}`;
  if (indexes.some((index) => index.name === 'search_text')) await executor.exec(`${alter} DROP INDEX search_text`);
  if (textIndex && !upToDate) await executor.exec(`${alter} DROP INDEX ${TEXT_INDEX}`);
  if (upToDate) return finishTextIndex(executor, tables);
  await executor.exec(`${alter} ADD INDEX ${TEXT_INDEX} ${INDEXED_TEXT} TYPE ${TEXT_INDEX_TYPE}`);
  await materializeTextIndex(executor, tables);
}

const materializeTextIndex = (executor: SqlExecutor, tables: LogTables) =>
  executor.exec(`ALTER TABLE ${tables.stored}${tables.onCluster} MATERIALIZE INDEX ${TEXT_INDEX} SETTINGS mutations_sync = 2`);

/**
 * Builds the text index for stored parts that lack it: a rebuild cut short by a crash is finished
 * at the next start. Checked at every start; when every part has it, this is one cheap query.
 */
export async function finishTextIndex(executor: SqlExecutor, tables: LogTables): Promise<void> {
  // The text index is the table's only skip index, so a part with no index bytes lacks it.
  const [{ unindexed }] = await executor.rows<{ unindexed: string }>(
    `SELECT count() AS unindexed FROM ${tables.parts} WHERE database = currentDatabase() AND table = {table:String}
        AND active AND rows > 0 AND secondary_indices_compressed_bytes = 0`,
    { table: tables.stored },
  );
  if (Number(unindexed) > 0) await materializeTextIndex(executor, tables);
}
