import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DEFAULT_ENGINE_CACHE_BYTES, ENGINE_ALLOCATOR_SETTINGS, openChdbExecutor } from './chdb-executor.js';
import type { SqlExecutor } from './executor.js';

// The embedded executor on its own. Long reads run apart, on sessions of their own, so that they
// never hold an insert (an ingest request's acknowledgement) or a short read on the main one.
// Whether a long read on the main connection holds an insert is the binding's business: chDB's
// binding chains bound queries process-wide but not inserts, and an insert went first behind a
// running read about one time in ten, so that is not tested here.

let dir: string;
let executor: SqlExecutor;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-chdb-executor-'));
  executor = await openChdbExecutor(dir);
  await executor.exec('CREATE TABLE t (n UInt32) ENGINE = MergeTree ORDER BY n');
});
after(async () => {
  await executor.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** About 1.5 s of the engine's time, bound like every store query. */
const SLOW_READ = 'SELECT sum(sleepEachRow(0.5)) + {add:UInt32} AS total FROM numbers(3) SETTINGS max_block_size = 1';

/** Resolves once the engine lists the slow read among its running queries (within 10 s). */
async function readUnderWay(): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const [row] = await executor.rows<{ running: string }>(
      "SELECT count() AS running FROM system.processes WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%system.processes%'",
      {},
      { apart: true },
    );
    if (Number(row.running) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('the slow read never started');
}

/** Which of a slow read run apart and an insert, started once the read is running, ends first. */
async function firstToEnd(): Promise<string[]> {
  const ended: string[] = [];
  const read = executor.rows<{ total: number }>(SLOW_READ, { add: 1 }, { apart: true }).then((rows) => {
    ended.push('read');
    return rows;
  });
  // The insert goes once the read is under way in the engine, seen from a session of its own, so
  // that an insert ending first shows it went beside the read, not before it started.
  await readUnderWay();
  await executor.insertTabSeparated('t', ['n'], Buffer.from('1\n')).then(() => ended.push('insert'));
  const rows = await read;
  assert.equal(Number(rows[0].total), 1, 'the read answers in full');
  return ended;
}

test('a long read run apart lets an insert, and a short bound read, go on beside it', async () => {
  assert.deepEqual(await firstToEnd(), ['insert', 'read']);
  const ended: string[] = [];
  const read = executor.rows(SLOW_READ, { add: 0 }, { apart: true }).then(() => ended.push('long'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await executor.rows('SELECT count() AS c FROM t WHERE n = {n:UInt32}', { n: 1 }).then(() => ended.push('short'));
  await read;
  assert.deepEqual(ended, ['short', 'long']);
});

test('a read apart that is abandoned rejects, and the executor goes on working', async () => {
  const abandoned = AbortSignal.abort();
  await assert.rejects(executor.rows(SLOW_READ, { add: 0 }, { apart: true, signal: abandoned }));
  const [row] = await executor.rows<{ c: string }>('SELECT count() AS c FROM t', {}, { apart: true });
  assert.equal(Number(row.c), 1, 'the one row the test before inserted');
});

test("the engine's allocator settings are in the environment before chDB loads, unless the operator set their own", async () => {
  // A process of its own for each: the library reads JE_MALLOC_CONF once, when it is first loaded.
  const script = `
    const { openChdbExecutor } = await import(${JSON.stringify(new URL('./chdb-executor.js', import.meta.url).href)});
    const executor = await openChdbExecutor(process.argv[1]);
    const [row] = await executor.rows('SELECT 1 AS one');
    await executor.close();
    console.log(JSON.stringify({ conf: process.env.JE_MALLOC_CONF ?? null, one: row.one }));
  `;
  const run = (env: Record<string, string>) => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-chdb-allocator-'));
    try {
      const { JE_MALLOC_CONF: _unset, ...rest } = process.env;
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, scratch], { env: { ...rest, ...env }, encoding: 'utf8' });
      return JSON.parse(output.trim().split('\n').pop()!) as { conf: string | null; one: number };
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  };
  const unset = run({});
  assert.equal(unset.conf, ENGINE_ALLOCATOR_SETTINGS);
  assert.equal(unset.one, 1, 'the engine runs with them');
  assert.equal(run({ JE_MALLOC_CONF: 'dirty_decay_ms:1000' }).conf, 'dirty_decay_ms:1000');
});

/** The engine's cache bounds as it reports them, in bytes by setting. */
async function cacheBounds(engine: SqlExecutor): Promise<Record<string, number>> {
  const rows = await engine.rows<{ name: string; value: string }>(
    "SELECT name, value FROM system.server_settings WHERE name IN ('mark_cache_size', 'primary_index_cache_size', 'index_mark_cache_size', 'text_index_tokens_cache_size', 'text_index_header_cache_size', 'text_index_postings_cache_size', 'query_condition_cache_size', 'compiled_expression_cache_size')",
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.value)]));
}

test("the engine's caches hold at most 256 MiB together by default, not the engine's 19 GiB", async () => {
  const bounds = await cacheBounds(executor);
  assert.equal(Object.keys(bounds).length, 8, 'every cache a search fills is bounded');
  assert.equal(Object.values(bounds).reduce((sum, bytes) => sum + bytes, 0), DEFAULT_ENGINE_CACHE_BYTES);
  assert.equal(bounds.mark_cache_size, 64 * 2 ** 20);
  assert.equal(bounds.text_index_tokens_cache_size, 64 * 2 ** 20);
  assert.equal(bounds.query_condition_cache_size, 16 * 2 ** 20);
});

test('LOGSTEAD_ENGINE_CACHE_BYTES sets the bound when the server opens the embedded engine', async () => {
  // A process of its own: the engine is one per process, set up by its first session.
  const script = `
    const { loadSettings } = await import(${JSON.stringify(new URL('../settings.js', import.meta.url).href)});
    const { openLogExecutor } = await import(${JSON.stringify(new URL('./open-executor.js', import.meta.url).href)});
    const executor = await openLogExecutor(loadSettings({ LOGSTEAD_DATA_DIR: process.argv[1], LOGSTEAD_ENGINE_CACHE_BYTES: '1GiB' }));
    const rows = await executor.rows("SELECT name, value FROM system.server_settings WHERE name IN ('mark_cache_size', 'text_index_header_cache_size', 'query_condition_cache_size')");
    await executor.close();
    console.log(JSON.stringify(Object.fromEntries(rows.map((row) => [row.name, Number(row.value)]))));
  `;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-chdb-caches-'));
  try {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, scratch], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(output.trim().split('\n').pop()!), {
      mark_cache_size: 256 * 2 ** 20,
      text_index_header_cache_size: 128 * 2 ** 20,
      query_condition_cache_size: 64 * 2 ** 20,
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
