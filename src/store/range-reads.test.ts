import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openTestExecutor } from '../testing/log-engine.js';
import type { RowsOptions, SqlExecutor, SqlParams } from './executor.js';
import { LogStore, arrivalId } from './log-store.js';
import { encodeRows } from './row-encoding.js';
import type { StoredLine } from './types.js';

// The store's reads over a range of lines ask to run apart from the inserts: on the embedded
// engine's main connection such a read holds every insert until it ends (chdb-executor.test.ts
// shows the engine's side of it). Each read is made through an executor that records what it was
// asked, and still answers from the real engine, so each read is also seen to work.

const HOUR = 1_764_000_000_000 - (1_764_000_000_000 % 3_600_000);
const ACCOUNT = 'range-reads';

const line = (at: number, app: string, host: string): StoredLine => ({
  account: ACCOUNT, ts: HOUR + at * 1000, id: String(BigInt(arrivalId(HOUR)) + BigInt(at)), batch_id: '1', host, app, level: 'INFO',
  env: '', file: '', ip: '', mac: '', tags: ['t1'], line: `request ${at} served`, logtype: '', fields: '', meta: '{"status":200}', meta_indexed: true,
  meta_note: '', extra: '', size: 20,
});

let dir: string;
let engine: SqlExecutor;
let store: LogStore;
/** Every rows() call the store made while `recording`, with whether it asked to run apart. */
let calls: Array<{ sql: string; apart: boolean }> = [];
let recording = false;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-range-reads-'));
  engine = await openTestExecutor(dir);
  const recorder: SqlExecutor = {
    exec: (sql, params) => engine.exec(sql, params),
    stream: (sql, params, signal) => engine.stream(sql, params, signal),
    gzipLines: (sql, params, level) => engine.gzipLines(sql, params, level),
    insertTabSeparated: (table, columns, payload) => engine.insertTabSeparated(table, columns, payload),
    close: () => engine.close(),
    rows<T>(sql: string, params?: SqlParams, options?: RowsOptions): Promise<T[]> {
      if (recording) calls.push({ sql, apart: options?.apart === true });
      return engine.rows<T>(sql, params, options);
    },
  };
  store = await LogStore.open(recorder);
  await store.insert(encodeRows([line(1, 'api', 'h1'), line(2, 'api', 'h2'), line(3, 'web', 'h1')]));
});
after(async () => {
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What `read` asked of the executor: each call, and whether it ran apart. */
async function recorded<T>(read: () => Promise<T>): Promise<{ result: T; calls: typeof calls }> {
  calls = [];
  recording = true;
  try {
    return { result: await read(), calls };
  } finally {
    recording = false;
  }
}

const range = { account: ACCOUNT, fromMs: HOUR, toMs: HOUR + 3_600_000 - 1 };

const reads: Array<[string, () => Promise<unknown>, (result: any) => void]> = [
  ['the timeline (histogram)', () => store.histogram(range, 60_000), (rows) => assert.equal(rows.reduce((sum: number, row: { count: number }) => sum + row.count, 0), 3)],
  ['the menus (facets)', () => store.facets(range, 10), (facets) => assert.deepEqual(facets.app, [{ value: 'api', count: 2 }, { value: 'web', count: 1 }])],
  ['usage by day, app and host', () => store.usage(ACCOUNT, range.fromMs, range.toMs, 10), (usage) => assert.equal(usage.totals.lines, 3)],
  ['volume by app', () => store.volumeBy(range, 'app', 10), (rows) => assert.deepEqual(rows.map((row: { name: string }) => row.name), ['api', 'web'])],
  ['apps and hosts by lines (scope counts)', () => store.namesByLines(range, 10), (names) => assert.deepEqual(names, { apps: ['api', 'web'], hosts: ['h1', 'h2'] })],
  ['meta field paths', () => store.metaFieldPaths(range), (paths) => assert.deepEqual(paths, ['status'])],
  ['volume', () => store.volume(range), (volume) => assert.deepEqual(volume, { lines: 3, bytes: 60 })],
  ['alert windows (index-rate monitor)', () => store.alertWindows(range, 3_600_000), (windows) => assert.equal(windows[0].count, 3)],
];

for (const [name, read, check] of reads) {
  test(`${name}: read apart from the inserts`, async () => {
    const { result, calls: made } = await recorded(read);
    check(result);
    assert.ok(made.length > 0, 'it read through the executor');
    for (const call of made) assert.ok(call.apart, `not apart: ${call.sql.replace(/\s+/g, ' ').slice(0, 120)}`);
  });
}
