import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredLine } from './types.js';
import { exportRecord } from './export-record.js';
import { EXPORT_RECORD_KEYS, EXTRA_RECORD_KEYS } from '../wire/export-record-keys.js';

const stored: StoredLine = {
  account: 'acct',
  ts: 1_763_800_000_123,
  id: '42',
  batch_id: 'b1',
  host: 'web-1',
  app: 'api',
  level: 'ERROR',
  env: 'prod',
  file: '/var/log/api.log',
  ip: '10.0.0.1',
  mac: '',
  tags: ['eu'],
  line: '{"level":"info","msg":"hi","user":7}',
  logtype: 'json',
  fields: '{"level":"info","msg":"hi","user":7}',
  meta: '{"region":"eu-1"}',
  meta_indexed: true,
  extra: '{"pid":12}',
  size: 36,
};

test('a JSON line exports its fields at the top level, its built-in fields winning in place, then its extra keys', () => {
  const record = exportRecord(stored);
  assert.equal(record.level, 'ERROR', 'the line level is the stored level, not the field');
  assert.equal(record.msg, 'hi');
  assert.equal(record.user, 7);
  assert.equal(record.pid, 12);
  assert.deepEqual(record.meta, { region: 'eu-1' });
  assert.equal(record._line, stored.line);
  assert.equal(record.timestamp, '2025-11-22T08:26:40.123Z');
  assert.equal(record._metaUnindexed, undefined);
  // The same keys in the same order as a spread of fields, extra and then the built-in fields.
  const spread = { ...JSON.parse(stored.fields), ...JSON.parse(stored.extra), ...Object.fromEntries(Object.entries(record).filter(([key]) => key.startsWith('_') || ['timestamp', 'level', 'env', 'tags'].includes(key))) };
  assert.deepEqual(Object.keys(record), [...Object.keys(spread), 'meta']);
});

test('a text line exports only the built-in fields; meta that is not JSON comes as its text, with why it is not indexed', () => {
  const record = exportRecord({ ...stored, line: 'plain text', logtype: 'text', fields: '', extra: '', meta: 'not json', meta_indexed: false, meta_note: 'not-an-object' });
  assert.equal(record.msg, undefined);
  assert.equal(record.pid, undefined);
  assert.equal(record.meta, 'not json');
  assert.equal(record._metaUnindexed, 'not-an-object');
  assert.deepEqual(Object.keys(record).slice(0, 3), ['_id', '_ts', 'timestamp']);
});

test('fields that are not a JSON object add nothing at the top level', () => {
  const record = exportRecord({ ...stored, fields: '[1,2]', extra: 'broken{' });
  assert.equal(record['0'], undefined);
  assert.equal(record._app, 'api');
});

test("a record's own keys are the ones the viewer knows (wire/export-record-keys.ts), so it reads every other key as a field", () => {
  const record = exportRecord({ ...stored, fields: '', extra: '', meta_indexed: false, meta_note: 'type-conflict' });
  assert.deepEqual(Object.keys(record).filter((key) => !EXPORT_RECORD_KEYS.includes(key)), []);
  assert.deepEqual(EXPORT_RECORD_KEYS.filter((key) => !(key in record)), [], 'each listed key is set by exportRecord');
  const withFields = exportRecord({ ...stored, line: '10.0.0.1 - - "GET / HTTP/1.1" 200', logtype: 'nginx', fields: '{"_status":200,"path":"/"}', extra: '{"pid":3}' });
  assert.deepEqual(Object.keys(withFields).filter((key) => !EXPORT_RECORD_KEYS.includes(key)), ['_status', 'path', 'pid']);
  assert.ok(EXTRA_RECORD_KEYS.includes('pid'));
});
