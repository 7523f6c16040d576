import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openTestExecutor } from '../testing/log-engine.js';
import type { SqlExecutor, SqlParams } from './executor.js';
import { LogStore } from './log-store.js';
import { createLogTables, createMigrationsTable } from './schema.js';
import { logTables } from './tables.js';

// No ClickHouse cluster runs here, so the ON CLUSTER statements are checked on their exact text.

/** The column list of a CREATE TABLE: the part between its first '(' and the ENGINE clause. */
const columnsOf = (statement: string) => statement.slice(statement.indexOf('('), statement.indexOf('\nENGINE'));

test('on a cluster, the log table is ReplicatedMergeTree on every node under a Distributed table sharded by line id', () => {
  const [stored, distributed, ...rest] = createLogTables(logTables('logs_cluster'), 'logstead');
  const [embedded] = createLogTables(logTables(), 'logstead');
  assert.equal(rest.length, 0);
  assert.ok(stored.startsWith("CREATE TABLE IF NOT EXISTS logs ON CLUSTER 'logs_cluster' (\n  account      LowCardinality(String),"));
  assert.equal(columnsOf(stored), columnsOf(embedded), 'the same columns and index as the embedded table');
  assert.ok(
    stored.endsWith(
      ")\nENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/logs', '{replica}')\n" +
        'PARTITION BY toDate(ts)\nORDER BY (account, ts, id)\nSETTINGS fsync_after_insert = 1, fsync_part_directory = 1, merge_selector_base = 25, ' +
        'min_rows_to_fsync_after_merge = 1, old_parts_lifetime = 5, cleanup_delay_period = 5, cleanup_delay_period_random_add = 2, max_cleanup_delay_period = 10, ' +
        'max_compress_block_size = 262144, vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1',
    ),
    stored,
  );
  assert.equal(
    distributed,
    "CREATE TABLE IF NOT EXISTS logs_distributed ON CLUSTER 'logs_cluster' AS logs\n" +
      "ENGINE = Distributed('logs_cluster', 'logstead', 'logs', cityHash64(id))",
  );
  assert.ok(embedded.startsWith('CREATE TABLE IF NOT EXISTS logs (\n'));
  assert.ok(embedded.includes(')\nENGINE = MergeTree\nPARTITION BY toDate(ts)'));
  assert.doesNotMatch(embedded, /ON CLUSTER|Replicated|Distributed/);
});

test('on a cluster, the migrations table is replicated to every node, one Keeper path for all shards', () => {
  assert.equal(
    createMigrationsTable(logTables('c1')),
    "CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER 'c1' (\n  version    UInt32,\n  name       String,\n  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)\n)\n" +
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{database}/schema_migrations', '{replica}')\nORDER BY version",
  );
  assert.equal(
    createMigrationsTable(logTables()),
    "CREATE TABLE IF NOT EXISTS schema_migrations (\n  version    UInt32,\n  name       String,\n  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)\n)\nENGINE = MergeTree\nORDER BY version",
  );
});

test("the cluster statements are ClickHouse's own syntax (the engine's parser accepts them)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-cluster-ddl-'));
  const executor = await openTestExecutor(dir);
  try {
    const tables = logTables('logs_cluster');
    for (const statement of [...createLogTables(tables, 'logstead'), createMigrationsTable(tables)]) {
      const [{ formatted }] = await executor.rows<{ formatted: string }>('SELECT formatQuerySingleLine({sql:String}) AS formatted', { sql: statement });
      assert.match(formatted, /ON CLUSTER logs_cluster/);
    }
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** An executor that records every statement and answers each query with a plausible row. */
function recordingExecutor(): SqlExecutor & { statements: string[]; inserts: string[] } {
  const statements: string[] = [];
  const inserts: string[] = [];
  const answer = (sql: string): unknown[] => {
    if (sql.includes('currentDatabase() AS database')) return [{ database: 'logstead' }];
    if (sql.includes('FROM schema_migrations') || sql.includes('system.data_skipping_indices')) return [];
    if (sql.includes('AS unindexed')) return [{ unindexed: '0' }];
    if (sql.includes('partition_id AS id')) return [{ id: '20261101', newest: '1762041599', lines: '5', bytes: '100' }];
    if (sql.includes('AS merges')) return [{ rows: '5', parts: '1', bytes: '100', merges: '0' }];
    return [{ lines: '3' }];
  };
  const flat = (sql: string) => sql.replace(/\s+/g, ' ').trim();
  return {
    statements,
    inserts,
    async exec(sql: string, _params?: SqlParams) {
      statements.push(flat(sql));
    },
    async rows<T>(sql: string) {
      statements.push(flat(sql));
      return answer(sql) as T[];
    },
    async *stream<T>(sql: string) {
      statements.push(flat(sql));
      yield [] as T[];
    },
    async gzipLines(sql: string) {
      statements.push(flat(sql));
      return Buffer.alloc(0);
    },
    async insertTabSeparated(table: string) {
      inserts.push(table);
    },
    async close() {},
  };
}

test('on a cluster, the store creates its tables ON CLUSTER, writes and reads through the Distributed table, and drops and deletes ON CLUSTER', async () => {
  const executor = recordingExecutor();
  const store = await LogStore.open(executor, { cluster: 'c1' });
  const ddl = executor.statements.filter((sql) => !sql.startsWith('SELECT') && !sql.startsWith('INSERT'));
  const expected = [
      "CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER 'c1' ( version UInt32,",
      "CREATE TABLE IF NOT EXISTS logs ON CLUSTER 'c1' ( account LowCardinality(String),",
      "CREATE TABLE IF NOT EXISTS logs_distributed ON CLUSTER 'c1' AS logs ENGINE = Distributed('c1', 'logstead', 'logs', cityHash64(id))",
      "ALTER TABLE logs ON CLUSTER 'c1' MODIFY SETTING merge_selector_base = 10",
      "ALTER TABLE logs ON CLUSTER 'c1' ADD INDEX search_tokens replaceRegexpAll(lower(concat(line,",
      "ALTER TABLE logs ON CLUSTER 'c1' MATERIALIZE INDEX search_tokens SETTINGS mutations_sync = 2",
      "ALTER TABLE logs ON CLUSTER 'c1' ADD COLUMN IF NOT EXISTS meta_note LowCardinality(String) DEFAULT '' AFTER meta_indexed",
      "ALTER TABLE logs_distributed ON CLUSTER 'c1' ADD COLUMN IF NOT EXISTS meta_note LowCardinality(String) DEFAULT '' AFTER meta_indexed",
      "ALTER TABLE logs ON CLUSTER 'c1' ADD COLUMN IF NOT EXISTS restored_until DateTime64(3, 'UTC') DEFAULT 0",
      "ALTER TABLE logs_distributed ON CLUSTER 'c1' ADD COLUMN IF NOT EXISTS restored_until DateTime64(3, 'UTC') DEFAULT 0",
      "ALTER TABLE logs ON CLUSTER 'c1' MODIFY COLUMN app CODEC(ZSTD(1)), MODIFY COLUMN level CODEC(ZSTD(1)), MODIFY COLUMN logtype CODEC(ZSTD(1)), MODIFY COLUMN meta_indexed CODEC(ZSTD(1)), MODIFY COLUMN size CODEC(T64, ZSTD(1))",
      "ALTER TABLE logs ON CLUSTER 'c1' MODIFY SETTING min_rows_to_fsync_after_merge = 1, old_parts_lifetime = 5, cleanup_delay_period = 5, cleanup_delay_period_random_add = 2, max_cleanup_delay_period = 10",
      "ALTER TABLE logs ON CLUSTER 'c1' MODIFY SETTING max_compress_block_size = 262144",
      "ALTER TABLE logs ON CLUSTER 'c1' MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1",
      "ALTER TABLE logs ON CLUSTER 'c1' MODIFY SETTING merge_selector_base = 25",
  ];
  assert.equal(ddl.length, expected.length, ddl.join('\n'));
  expected.forEach((start, at) => assert.ok(ddl[at].startsWith(start), `${ddl[at]}\ndoes not start with\n${start}`));
  executor.statements.length = 0;

  await store.insert(Buffer.from(''));
  assert.deepEqual(executor.inserts, ['logs_distributed']);
  for await (const _ of store.read({ account: 'a', fromMs: 0, toMs: 1 }, { prefer: 'head', limit: 1, chronological: true })) break;
  await store.histogram({ account: 'a', fromMs: 0, toMs: 1 }, 1);
  await store.dropDay('20261101');
  await store.deleteLinesBefore('a', 1000);
  await store.days();
  await store.stats();
  const [read, histogram, drop, count, remove, days, stats] = executor.statements;
  assert.match(read, /^SELECT .* FROM logs_distributed WHERE account = \{account:String\}/);
  assert.match(histogram, / FROM logs_distributed WHERE /);
  assert.equal(drop, "ALTER TABLE logs ON CLUSTER 'c1' DROP PARTITION ID '20261101'");
  assert.equal(count, 'SELECT count() AS lines FROM logs_distributed WHERE account = {account:String} AND ts < fromUnixTimestamp64Milli({beforeMs:Int64}) AND restored_until <= now64(3)');
  assert.equal(remove, "DELETE FROM logs ON CLUSTER 'c1' WHERE account = {account:String} AND ts < fromUnixTimestamp64Milli({beforeMs:Int64}) AND restored_until <= now64(3)");
  assert.match(days, / FROM cluster\('c1', system\.parts\) WHERE database = currentDatabase\(\) AND table = 'logs' AND active GROUP BY partition_id/);
  assert.match(stats, /FROM cluster\('c1', system\.parts\) WHERE/);
  assert.match(stats, /SELECT count\(\) AS merges, sum\(memory_usage\) AS merge_memory\s+FROM clusterAllReplicas\('c1', system\.merges\)/, "the merges and their memory, of every replica");
  assert.equal(stats.match(/system\.merges/g)?.length, 1, 'one fan-out for the merges');
});
