import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LogLine } from '../api-client/client.js';
import { type Timeline, arrivedAfter, countInto } from './timeline.js';

const line = (_id: string, _ts: number, level = 'info'): LogLine => ({ _id, _ts, timestamp: '', _line: '', _app: '', _host: '', level });
const timeline: Timeline = { buckets: [{ ts: 0, count: 1, levels: { INFO: 1 } }, { ts: 100, count: 0, levels: {} }], interval: 100 };

describe('live lines on the timeline', () => {
  test('count into their bucket by level, without changing the timeline given', () => {
    const next = countInto(timeline, [line('a', 150, 'error'), line('b', 199), line('c', 120, '')]);
    assert.deepEqual(next.buckets[1], { ts: 100, count: 3, levels: { ERROR: 1, INFO: 1, OTHER: 1 } });
    assert.deepEqual(timeline.buckets[1], { ts: 100, count: 0, levels: {} });
  });

  test('open new buckets as time moves on, keeping the chart as wide', () => {
    const next = countInto(timeline, [line('a', 350)]);
    assert.deepEqual(next.buckets.map((bucket) => [bucket.ts, bucket.count]), [[200, 0], [300, 1]]);
    assert.equal(next.interval, 100);
  });

  test('lines older than the first bucket, or an empty timeline, change nothing', () => {
    assert.equal(countInto(timeline, []), timeline);
    assert.deepEqual(countInto(timeline, [line('a', -5)]).buckets, timeline.buckets);
    const empty = { buckets: [], interval: 1 };
    assert.equal(countInto(empty, [line('a', 5)]), empty);
  });

  test('lines that arrived while a search loaded are kept unless its page has them', () => {
    assert.deepEqual(arrivedAfter([line('a', 1), line('b', 2)], [line('b', 2), line('c', 3)]).map((kept) => kept._id), ['c']);
  });
});
