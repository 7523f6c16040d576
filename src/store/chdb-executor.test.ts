import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openChdbExecutor } from './chdb-executor.js';
import type { SqlExecutor } from './executor.js';

// The embedded executor on its own. chDB runs bound queries one at a time on a connection, and
// inserts share the main one: a long read there holds every insert (an ingest request's
// acknowledgement) until it ends. A read run apart must not.

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

/** Which of a slow read and an insert, started just after it, ends first. */
async function firstToEnd(apart: boolean): Promise<string[]> {
  const ended: string[] = [];
  const read = executor.rows<{ total: number }>(SLOW_READ, { add: 1 }, { apart }).then((rows) => {
    ended.push('read');
    return rows;
  });
  // The insert goes once the read is under way in the engine, seen from a session of its own: a
  // fixed head start was not always enough on a busy machine, and the insert then went first.
  await readUnderWay();
  await executor.insertTabSeparated('t', ['n'], Buffer.from('1\n')).then(() => ended.push('insert'));
  const rows = await read;
  assert.equal(Number(rows[0].total), 1, 'the read answers in full');
  return ended;
}

test('an insert waits behind a long read on the main connection', async () => {
  assert.deepEqual(await firstToEnd(false), ['read', 'insert']);
});

test('a long read run apart lets an insert, and a short bound read, go on beside it', async () => {
  assert.deepEqual(await firstToEnd(true), ['insert', 'read']);
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
  assert.ok(Number(row.c) >= 2);
});
