import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { exportRecord } from './export-record.js';
import { openTestExecutor } from '../testing/log-engine.js';
import { LogStore, arrivalId } from './log-store.js';
import { encodeRows } from './row-encoding.js';
import type { StoredLine } from './types.js';

// The archive objects are written by the engine (archive-record-sql.ts): each of its lines must be
// the line's export record, as exportRecord makes it, for every kind of line the store holds.

const HOUR = 1_764_000_000_000 - (1_764_000_000_000 % 3_600_000);
let next = 0;
const line = (overrides: Partial<StoredLine>): StoredLine => {
  next++;
  return {
    account: 'acct',
    ts: HOUR + next * 1000 + 7,
    id: String(BigInt(arrivalId(HOUR + 10_000)) + BigInt(next * 1000)),
    batch_id: '1764000000123',
    host: 'web-1',
    app: 'api',
    level: 'INFO',
    env: '',
    file: '',
    ip: '',
    mac: '',
    tags: [],
    line: `plain line ${next}`,
    logtype: '',
    fields: '',
    meta: '',
    meta_indexed: true,
    meta_note: '',
    extra: '',
    size: 12,
    ...overrides,
  };
};

const rows: StoredLine[] = [
  line({}),
  line({ line: 'a/b "quoted" back\\slash\ttab\nnewline é 😀 \u2028 \u0001 \u007f', host: 'h/1', app: 'a"pp', tags: ['t1', 'x/y'], env: 'prod', file: '/var/log/x.log', ip: '10.0.0.1', mac: 'aa:bb', logtype: 'json' }),
  line({ meta: '{"user":"x","n":1.5,"deep":{"a":[1,null,true]}}' }),
  line({ meta: '{"user":"x"}', meta_indexed: false, meta_note: 'type-conflict' }),
  line({ meta: '{"user":"x"}', meta_indexed: false, meta_note: '' }),
  line({ meta: '"42"', meta_indexed: false, meta_note: 'not-an-object' }),
  line({ meta: '{"cut": "abc', meta_indexed: false, meta_note: 'too-large' }),
  line({ fields: '{"msg":"hello/world","latency_ms":12,"ok":true,"nested":{"a":[1,2]}}', line: '{"msg":"hello/world"}' }),
  line({ fields: '{}' }),
  line({ fields: '{"level":"info","msg":"m","_status":200}', level: 'INFO', line: '{"level":"info","msg":"m","status":200}' }),
  line({ fields: '{"msg":"m","tags":["x"],"_id":"mine","level":"debug"}', tags: ['real'], meta: '{"k":"v"}' }),
  line({ fields: '{"msg":"m","meta":"field meta"}' }),
  line({ fields: '{"msg":"m","meta":"field meta"}', meta: '{"k":1}', meta_indexed: false, meta_note: 'daily-cap' }),
  line({ fields: '{"msg":"m","pid":"from fields"}', extra: '{"pid":42,"containerid":"abc"}' }),
  line({ extra: '{"prival":13,"label":{"k":"v"}}', meta: '{"m":1}' }),
  line({ fields: '{"a/b":"c","__proto__":{"x":1}}' }),
  line({ fields: '{"text":"has \\"level\\": inside"}' }),
];

test('the engine writes each line of an archive object as its export record', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-archive-record-'));
  const executor = await openTestExecutor(dir);
  try {
    const store = await LogStore.open(executor);
    await store.insert(encodeRows(rows));
    const { body, lines } = await store.archiveObject('acct', HOUR, HOUR, HOUR + 3_600_000, 1);
    assert.equal(lines, rows.length);
    const written = gunzipSync(body).toString('utf8').split('\n');
    assert.equal(written.pop(), '', 'every line ends in a newline');
    assert.equal(written.length, rows.length);
    rows.forEach((row, index) => {
      const expected = JSON.stringify(exportRecord(row));
      assert.deepEqual(JSON.parse(written[index]), JSON.parse(expected), `line ${index}: ${expected}`);
      // The engine escapes control characters and U+2028 its own way; the rest is the same bytes,
      // key order included (a parsed field named as a built-in keeps its place).
      if (index !== 1 && !row.extra) assert.equal(written[index], expected, `line ${index} byte for byte`);
    });
    const none = await store.archiveObject('acct', HOUR + 3_600_000, HOUR, HOUR + 3_600_000, 1);
    assert.equal(none.lines, 0);
    assert.equal(gunzipSync(none.body).length, 0);
  } finally {
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
