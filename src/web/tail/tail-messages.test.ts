import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LogLine } from '../api-client/client.js';
import { holdBack, readTailMessage } from './tail-messages.js';

const line = (_id: string): LogLine => ({ _id, _ts: 0, timestamp: '', _line: _id, _app: '', _host: '', level: '' });

describe("the tail socket's messages", () => {
  test('one line or a batch', () => {
    assert.deepEqual(readTailMessage(JSON.stringify({ e: 'log', p: line('a') })), { kind: 'lines', lines: [line('a')] });
    assert.deepEqual(readTailMessage(JSON.stringify({ e: 'log', p: [line('a'), line('b')] })), { kind: 'lines', lines: [line('a'), line('b')] });
  });

  test('a report of sampling, and other reports that show nothing', () => {
    assert.deepEqual(readTailMessage(JSON.stringify({ e: 'meta', p: { sampled: true, dropped: 1500 } })), { kind: 'sampled', dropped: 1500 });
    assert.deepEqual(readTailMessage(JSON.stringify({ e: 'meta', p: { sampled: true } })), { kind: 'sampled', dropped: 0 });
    assert.deepEqual(readTailMessage(JSON.stringify({ e: 'meta', p: { sampled: false } })), { kind: 'quiet' });
    assert.deepEqual(readTailMessage(JSON.stringify({ e: 'meta' })), { kind: 'quiet' });
    assert.throws(() => readTailMessage('not json'));
  });

  test('lines held back keep the newest ones, up to the limit', () => {
    assert.deepEqual(holdBack([line('a'), line('b')], [line('c'), line('d')], 3).map((kept) => kept._id), ['b', 'c', 'd']);
    assert.deepEqual(holdBack([], [line('a')], 3).map((kept) => kept._id), ['a']);
  });
});
