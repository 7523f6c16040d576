import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { compileQuery } from '../query/compile.js';
import { LogStore } from './log-store.js';
import { encodeRow } from './row-encoding.js';
import { openTestExecutor } from '../testing/log-engine.js';
import { LOG_SCHEMA_VERSION, migrateLogStore } from './migrations.js';
import { INDEXED_TEXT, SEARCH_TEXT } from './schema.js';
import { logTables } from './tables.js';
import type { SqlExecutor } from './executor.js';

test('a log table from before the token index gets it, built for the lines already stored', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  let executor = await openTestExecutor(dir);
  try {
    // The table as Logstead created it before INDEXED_TEXT (columns unchanged, old index).
    await executor.exec(`CREATE TABLE logs (
      account LowCardinality(String), ts DateTime64(3, 'UTC'), id UInt64, batch_id String, host LowCardinality(String),
      app LowCardinality(String), level LowCardinality(String), env LowCardinality(String), file LowCardinality(String),
      ip LowCardinality(String), mac LowCardinality(String), tags Array(LowCardinality(String)), line String,
      logtype LowCardinality(String), fields String, meta String, meta_indexed Bool, extra String, size UInt32,
      INDEX search_text lower(${SEARCH_TEXT}) TYPE text(tokenizer = splitByNonAlpha)
    ) ENGINE = MergeTree PARTITION BY toDate(ts) ORDER BY (account, ts, id)`);
    await executor.exec(`INSERT INTO logs (account, ts, id, line) VALUES ('old', fromUnixTimestamp64Milli(1763800000000), 1, 'naïveté disk failure')`);
    await executor.close();

    executor = await openTestExecutor(dir);
    const store = await LogStore.open(executor);
    const indexes = await executor.rows<{ name: string }>("SELECT name FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'logs'");
    assert.deepEqual(indexes.map((index) => index.name), ['search_tokens']);
    const found = async (query: string) => {
      let count = 0;
      for await (const rows of store.read({ account: 'old', fromMs: 0, toMs: 2e12, condition: compileQuery(query, null) }, { prefer: 'head', limit: 10, chronological: true })) count += rows.length;
      return count;
    };
    assert.equal(await found('fail'), 1);
    assert.equal(await found('vet'), 1);
    assert.equal(await found('"disk fail"'), 1);
    assert.equal(await found('==fail'), 0);
    // The table gains meta_note, empty for the lines it had, and takes new rows with it.
    await store.insert(Buffer.from(encodeRow({ account: 'old', ts: 1763800000001, id: '2', batch_id: 'b', host: 'h', app: 'a', level: '', env: '', file: '', ip: '', mac: '', tags: [], line: 'new line', logtype: 'text', fields: '', meta: '{"user":"x"}', meta_indexed: false, meta_note: 'type-conflict', extra: '', size: 8 })));
    const notes: string[] = [];
    for await (const rows of store.read({ account: 'old', fromMs: 0, toMs: 2e12 }, { prefer: 'head', limit: 10, chronological: true })) notes.push(...rows.map((row) => row.meta_note ?? 'missing'));
    assert.deepEqual(notes, ['', 'type-conflict']);
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('parts left without the token index (a rebuild cut short) get it at the next start', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  let executor = await openTestExecutor(dir);
  try {
    await LogStore.open(executor);
    await executor.exec(`ALTER TABLE logs DROP INDEX search_tokens`);
    await executor.exec(`INSERT INTO logs (account, ts, id, line) VALUES ('cut', fromUnixTimestamp64Milli(1763800000000), 1, 'kernel panic')`);
    await executor.exec(`ALTER TABLE logs ADD INDEX search_tokens ${INDEXED_TEXT} TYPE text(tokenizer = splitByNonAlpha)`);
    await executor.close();

    executor = await openTestExecutor(dir);
    const store = await LogStore.open(executor);
    let count = 0;
    for await (const rows of store.read({ account: 'cut', fromMs: 0, toMs: 2e12, condition: compileQuery('pan', null) }, { prefer: 'head', limit: 10, chronological: true })) count += rows.length;
    assert.equal(count, 1);
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a token index on an earlier search text is rebuilt on the current one, so stored lines gain what it adds', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  let executor = await openTestExecutor(dir);
  try {
    await migrateLogStore(executor, logTables());
    // A data directory from before migrations were recorded, its index as it was before JSON
    // lines with \u escapes were also searched as their fields.
    await executor.exec('DROP TABLE schema_migrations');
    const earlier = "replaceRegexpAll(lower(concat(line, '\\n', host, '\\n', app, '\\n', level, '\\n', file, '\\n', env, '\\n', arrayStringConcat(tags, '\\n'), '\\n', if(meta_indexed, meta, ''))), '[^\\\\x00-\\\\x7F]+', ' ')";
    await executor.exec('ALTER TABLE logs DROP INDEX search_tokens');
    await executor.exec(`ALTER TABLE logs ADD INDEX search_tokens ${earlier} TYPE text(tokenizer = splitByNonAlpha)`);
    await executor.exec(`INSERT INTO logs (account, ts, id, line, logtype, fields) VALUES ('old', fromUnixTimestamp64Milli(1763800000000), 1,
      '{"log":"caf\\\\u00e9 r\\\\u00e9sum\\\\u00e9"}', 'json', '{"log":"café résumé"}')`);
    await executor.exec('ALTER TABLE logs MATERIALIZE INDEX search_tokens SETTINGS mutations_sync = 2');
    await executor.close();

    executor = await openTestExecutor(dir);
    const store = await LogStore.open(executor);
    const [index] = await executor.rows<{ expr: string }>("SELECT expr FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'logs'");
    assert.match(index.expr, /fields/);
    const found = async (query: string) => {
      let count = 0;
      for await (const rows of store.read({ account: 'old', fromMs: 0, toMs: 2e12, condition: compileQuery(query, null) }, { prefer: 'head', limit: 10, chronological: true })) count += rows.length;
      return count;
    };
    assert.equal(await found('résumé'), 1);
    assert.equal(await found('sum'), 1, 'the token after é comes from the rebuilt index');
    assert.equal(await found('"café résumé"'), 1);
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('migrations are recorded: a new store applies each once, a reopened one none, and an older data directory keeps its lines', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  let executor = await openTestExecutor(dir);
  try {
    const first = await migrateLogStore(executor, logTables());
    assert.deepEqual(first.map((step) => step.version), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(LOG_SCHEMA_VERSION, 10);
    assert.deepEqual(await migrateLogStore(executor, logTables()), []);
    const recorded = await executor.rows<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(recorded.map((row) => Number(row.version)), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    // A data directory from before the migrations table: its table and lines are kept as they are.
    // Its small columns with the codecs tables had before version 6, its settings those from before 7, 8, 9 and 10.
    await executor.exec('ALTER TABLE logs MODIFY COLUMN app CODEC(LZ4), MODIFY COLUMN level CODEC(LZ4), MODIFY COLUMN logtype CODEC(LZ4), MODIFY COLUMN meta_indexed CODEC(LZ4), MODIFY COLUMN size CODEC(T64, LZ4)');
    await executor.exec('ALTER TABLE logs MODIFY SETTING merge_selector_base = 10');
    await executor.exec(
      'ALTER TABLE logs RESET SETTING min_rows_to_fsync_after_merge, old_parts_lifetime, cleanup_delay_period, cleanup_delay_period_random_add, max_cleanup_delay_period, max_compress_block_size, vertical_merge_algorithm_min_rows_to_activate, vertical_merge_algorithm_min_columns_to_activate',
    );
    assert.doesNotMatch(await tableSettings(executor), /old_parts_lifetime|max_compress_block_size|vertical_merge|merge_selector_base = 25/);
    await executor.exec(`INSERT INTO logs (account, ts, id, app, line, size) VALUES ('kept', fromUnixTimestamp64Milli(1763800000000), 7, 'web', 'still here', 10)`);
    await executor.exec('DROP TABLE schema_migrations');
    await executor.close();
    executor = await openTestExecutor(dir);
    const store = await LogStore.open(executor);
    assert.equal(await store.storedLines('kept'), 1);
    const codecs = await executor.rows<{ name: string; compression_codec: string }>(
      "SELECT name, compression_codec FROM system.columns WHERE database = currentDatabase() AND table = 'logs' AND name IN ('app', 'level', 'logtype', 'meta_indexed', 'size') ORDER BY name",
    );
    assert.deepEqual(
      codecs.map((column) => [column.name, column.compression_codec]),
      [['app', 'CODEC(ZSTD(1))'], ['level', 'CODEC(ZSTD(1))'], ['logtype', 'CODEC(ZSTD(1))'], ['meta_indexed', 'CODEC(ZSTD(1))'], ['size', 'CODEC(T64, ZSTD(1))']],
    );
    assert.deepEqual((await store.volumeBy({ account: 'kept', fromMs: 0, toMs: 2e12 }, 'app', 5)).map((row) => [row.name, row.bytes]), [['web', 10]]);
    assert.match(
      await tableSettings(executor),
      /min_rows_to_fsync_after_merge = 1, old_parts_lifetime = 5, cleanup_delay_period = 5, cleanup_delay_period_random_add = 2, max_cleanup_delay_period = 10, max_compress_block_size = 262144, vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1/,
    );
    assert.match(await tableSettings(executor), /merge_selector_base = 25/);
    const again = await executor.rows<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(again.map((row) => Number(row.version)), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The log table's SETTINGS clause, as the engine keeps it. */
async function tableSettings(executor: SqlExecutor): Promise<string> {
  const [{ engine_full }] = await executor.rows<{ engine_full: string }>("SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'logs'");
  return engine_full.slice(engine_full.indexOf('SETTINGS'));
}

test('merged-away parts leave the disk within seconds, not the minutes the engine keeps them by default', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  const executor = await openTestExecutor(dir);
  try {
    const store = await LogStore.open(executor);
    for (let part = 0; part < 4; part++) {
      await executor.exec(
        `INSERT INTO logs (account, ts, id, line) SELECT 'a', fromUnixTimestamp64Milli(1763800000000 + number), ${part} * 1000 + number, concat('line ', toString(number)) FROM numbers(500)`,
      );
    }
    await executor.exec('OPTIMIZE TABLE logs FINAL');
    const parts = async () => {
      const [row] = await executor.rows<{ live: string; dead: string }>(
        "SELECT countIf(active) AS live, countIf(NOT active) AS dead FROM system.parts WHERE database = currentDatabase() AND table = 'logs'",
      );
      return { active: Number(row.live), inactive: Number(row.dead) };
    };
    assert.equal((await parts()).active, 1, 'merged into one part');
    const merged = performance.now();
    // By default the engine's first pass for them comes 30-40 s after the table opens, later ones up to 5 minutes apart.
    const gone = await pollUntil(async () => (await parts()).inactive === 0, 25_000);
    assert.ok(gone, `the merged-away parts were still on disk ${Math.round((performance.now() - merged) / 1000)} s after the merge`);
    assert.equal(await store.storedLines('a'), 2000);
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Polls `done` every 250 ms for at most `ms`; whether it came true. */
async function pollUntil(done: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (await done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

test('a log store migrated by a newer build is not opened', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  const executor = await openTestExecutor(dir);
  try {
    await migrateLogStore(executor, logTables());
    await executor.exec(`INSERT INTO schema_migrations (version, name) VALUES (${LOG_SCHEMA_VERSION + 1}, 'from the future')`);
    await assert.rejects(LogStore.open(executor), new RegExp(`schema version ${LOG_SCHEMA_VERSION + 1}, from a newer Logstead`));
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a word search is served by the text index: the query repeats the index expression exactly as the engine keeps it', async () => {
  // The engine rewrites some expressions in a query (fields != '' becomes notEmpty(fields)) but keeps
  // the index's as written; when the two differ, every search silently reads and tokenises every line.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-schema-'));
  const executor = await openTestExecutor(dir);
  try {
    const store = await LogStore.open(executor);
    // With no part to read, the plan reads nothing at all; one line makes it choose.
    await store.insert(Buffer.from(encodeRow({ account: 'a', ts: 1763800000000, id: '1', batch_id: 'b', host: 'h', app: 'a', level: '', env: '', file: '', ip: '', mac: '', tags: [], line: '{"msg":"connection reset, timeout"}', logtype: 'json', fields: '{"msg":"connection reset, timeout"}', meta: '', meta_indexed: false, extra: '', size: 34 })));
    for (const query of ['timeout', 'time', '"connection reset"']) {
      const condition = compileQuery(query, null)!;
      // Both forms: prefixes expanded by a subquery in the SQL, and looked up first as LogStore does.
      const tokens = new Map<string, string[]>();
      for (const word of condition.prefixes?.words ?? []) {
        tokens.set(word, (await executor.rows<{ token: string }>(condition.prefixes!.tokensSql('{prefix:String}'), { prefix: word })).map((row) => row.token));
      }
      const forms = condition.prefixes ? [condition, condition.prefixes.expanded(tokens)] : [condition];
      for (const { sql, params } of forms) {
        const plan = await executor.rows<{ explain: string }>(`EXPLAIN indexes = 1 SELECT count() FROM logs WHERE ${sql}`, params);
        assert.ok(plan.some((row) => row.explain.includes('search_tokens')), `${query}: the plan names the text index\n${plan.map((row) => row.explain).join('\n')}`);
      }
      if (query === 'time') assert.deepEqual(tokens.get('time'), ['timeout'], 'the prefix expands to the stored token');
    }
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
