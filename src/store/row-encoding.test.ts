import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openTestExecutor } from '../testing/log-engine.js';
import type { SqlExecutor } from './executor.js';
import { LogStore } from './log-store.js';
import type { StoredLine } from './types.js';
import { BufferPool } from '../lib/buffer-pool.js';
import { EncodedRows, INSERT_COLUMNS, encodeRow, encodeRows } from './row-encoding.js';

let dir: string;
let executor: SqlExecutor;
let store: LogStore;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-row-encoding-'));
  executor = await openTestExecutor(dir);
  store = await LogStore.open(executor);
});

after(async () => {
  await executor.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function row(overrides: Partial<StoredLine>): StoredLine {
  return {
    account: 'acct', ts: 1_763_800_000_123, id: '1', batch_id: 'b', host: 'h', app: 'a', level: 'INFO', env: '', file: '',
    ip: '', mac: '', tags: [], line: 'x', logtype: 'text', fields: '', meta: '', meta_indexed: false, meta_note: '', extra: '', size: 1,
    ...overrides,
  };
}

async function readAll(account: string): Promise<StoredLine[]> {
  const rows: StoredLine[] = [];
  for await (const chunk of store.read({ account, fromMs: 0, toMs: 4_000_000_000_000 }, { prefer: 'head', limit: 1000, chronological: true })) {
    rows.push(...chunk.map(({ ts_ms: _readAlias, ...stored }: StoredLine & { ts_ms?: unknown }) => stored));
  }
  return rows;
}

test('every kind of text survives the trip through the engine unchanged', async () => {
  const awkward = [
    'tab\there', 'new\nline', 'carriage\r\nreturn', 'back\\slash \\t not a tab', "it's 'quoted'", '"double" {json: [1]}',
    'nul\u0000byte', 'emoji 🚀 café 日本語', '\\', '', ' leading and trailing ', '\\N', 'a\u000bvertical\u000cfeed',
  ];
  const rows = awkward.map((text, i) =>
    row({
      account: 'awkward', id: String(i + 1), ts: 1_763_800_000_000 + i, line: text, host: text.slice(0, 10), meta: text ? JSON.stringify({ text }) : '',
      tags: [text, "o'clock", 'plain'], fields: text, extra: text, meta_indexed: i % 2 === 0, meta_note: i % 2 === 0 ? '' : 'type-conflict', size: Buffer.byteLength(text),
    }),
  );
  await store.insert(encodeRows(rows));
  assert.deepEqual(await readAll('awkward'), rows);
});

test("rows of different requests, encoded one after another, each keep their own request's columns", async () => {
  // What a request's rows share is encoded once and reused while the next row shares it too.
  const first = { account: 'shared-a', batch_id: 'batch-1', host: 'h1', ip: '10.0.0.1', mac: 'aa', tags: ['one'] };
  const second = { account: 'shared-b', batch_id: 'batch-2', host: 'h2', ip: '10.0.0.2', mac: 'bb', tags: ['two', 'three'] };
  const rows = [
    row({ ...first, id: '1' }), row({ ...first, id: '2', tags: first.tags }), row({ ...second, id: '3' }),
    row({ ...first, id: '4', host: 'own-host' }), row({ ...first, id: '5', ip: '10.9.9.9' }), row({ ...second, id: '6', tags: ['other'] }),
    row({ ...second, id: '7', env: 'prod', file: '/var/log/x', meta_note: 'daily-cap', extra: '{"pid":1}' }),
  ];
  await store.insert(encodeRows(rows));
  assert.deepEqual(await readAll('shared-a'), rows.filter((each) => each.account === 'shared-a'));
  assert.deepEqual(await readAll('shared-b'), rows.filter((each) => each.account === 'shared-b'));
});

test('timestamps keep their milliseconds', async () => {
  const times = [1_763_800_000_000, 1_763_800_000_001, 1_763_800_000_999, 1_763_800_000_100, 1_763_800_000_050, 946_684_800_010];
  await store.insert(encodeRows(times.map((ts, i) => row({ account: 'times', ts, id: String(i + 1) }))));
  assert.deepEqual((await readAll('times')).map((stored) => stored.ts), [...times].sort((a, b) => a - b));
});

test('one encoded row is exactly one line of tab-separated fields', () => {
  const encoded = encodeRow(row({ line: 'a\tb\nc', tags: ['x\ty'] }));
  assert.equal(encoded.split('\n').length, 2);
  assert.equal(encoded.split('\t').length, 20);
});

test('rows encoded into a growing buffer are the UTF-8 of their text, byte for byte', () => {
  // Long and multi-byte rows (a surrogate pair is 2 units and 4 bytes), far past the first 4 KB.
  const rows = Array.from({ length: 300 }, (_, i) =>
    row({ id: String(i), line: `${'日本語 🚀 café '.repeat(i % 17)}line ${i}\t${'x'.repeat(i * 7)}`, tags: [`t${i}`], size: i }),
  );
  const encoded = new EncodedRows(0);
  for (const each of rows) encoded.add(each);
  const expected = Buffer.from(rows.map(encodeRow).join(''), 'utf8');
  assert.equal(encoded.rows, 300);
  assert.equal(encoded.chars, rows.map(encodeRow).join('').length);
  assert.ok(encoded.bytesWritten().equals(expected));
  assert.ok(encodeRows(rows).equals(expected));
});

test('rows encoded into pooled buffers: the same bytes, the outgrown buffers given back, the last once only', () => {
  const rows = Array.from({ length: 2000 }, (_, i) => row({ id: String(i), line: `${'日本語 🚀 café '.repeat(i % 5)}line ${i} ${'x'.repeat(i % 300)}`, tags: [`t${i}`], size: i }));
  const expected = Buffer.from(rows.map(encodeRow).join(''), 'utf8');
  const pool = new BufferPool(64 * 1024 * 1024);
  // Sized well short of the rows (as a guess from a body's size can be): it grows through the pool.
  const encoded = new EncodedRows(64 * 1024, pool);
  for (const each of rows) encoded.add(each);
  const written = encoded.bytesWritten();
  assert.ok(written.equals(expected));
  assert.ok(pool.waitingBytes > 0, 'the buffers it grew out of wait in the pool');
  const waiting = pool.waitingBytes;
  encoded.giveBack();
  encoded.giveBack();
  assert.equal(pool.waitingBytes, waiting + written.buffer.byteLength, 'its last buffer given back once');

  // A buffer sized to the text is not doubled for the worst case of three bytes a character.
  const ascii = Array.from({ length: 500 }, (_, i) => row({ id: String(i), line: 'y'.repeat(200) }));
  const exact = Buffer.byteLength(ascii.map(encodeRow).join(''));
  const sized = new EncodedRows(exact, new BufferPool(0));
  for (const each of ascii) sized.add(each);
  assert.equal(sized.bytesWritten().buffer.byteLength, 2 ** Math.ceil(Math.log2(exact)));

  // A small request's rows, in a buffer the pool does not keep, are copied out of its slack as before.
  const long = row({ id: 'long', line: 'z'.repeat(5000) });
  const one = new EncodedRows(60 * 1024, new BufferPool(64 * 1024 * 1024));
  one.add(long);
  const bytes = one.bytesWritten();
  assert.equal(bytes.buffer.byteLength, bytes.length, 'no 60 KB buffer held for one row');
  assert.ok(bytes.equals(Buffer.from(encodeRow(long))));
});

test('timestamps are written as seconds with exactly three decimals', () => {
  const secondsOf = (ts: number) => encodeRow(row({ ts })).split('\t')[INSERT_COLUMNS.indexOf('ts')];
  assert.equal(secondsOf(1_763_800_000_000), '1763800000.000');
  assert.equal(secondsOf(1_763_800_000_007), '1763800000.007');
  assert.equal(secondsOf(1_763_800_000_070), '1763800000.070');
  assert.equal(secondsOf(1_763_800_000_700), '1763800000.700');
  assert.equal(secondsOf(999), '0.999');
  assert.equal(secondsOf(0), '0.000');
});
