import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineTime, toMillis } from './timestamps.js';

test('toMillis detects seconds, milliseconds, microseconds, nanoseconds and ISO 8601', () => {
  const ms = 1_763_800_000_123;
  assert.equal(toMillis(1_763_800_000), 1_763_800_000_000);
  assert.equal(toMillis(1_763_800_000.5), 1_763_800_000_500);
  assert.equal(toMillis(ms), ms);
  assert.equal(toMillis(ms * 1000), ms);
  assert.equal(toMillis(ms * 1_000_000), ms);
  assert.equal(toMillis(String(ms)), ms);
  assert.equal(toMillis('2025-11-22T08:26:40.123Z'), Date.parse('2025-11-22T08:26:40.123Z'));
  assert.equal(toMillis('2025-11-22T09:26:40.123+01:00'), Date.parse('2025-11-22T08:26:40.123Z'));
  for (const bad of ['', 'soon', null, undefined, {}, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(toMillis(bad), null);
});

test('lineTime corrects drift, keeps past times, and takes the receive time for missing or far-future ones', () => {
  const received = 1_763_800_000_000;
  assert.equal(lineTime(received - 5000, received, 0), received - 5000);
  assert.equal(lineTime(received - 5000, received, 3000), received - 2000);
  assert.equal(lineTime(undefined, received, 3000), received);
  assert.equal(lineTime(received - 2 * 86_400_000, received, 0), received - 2 * 86_400_000, 'a replayed buffer keeps its times');
  assert.equal(lineTime(received - 400 * 86_400_000, received, 0), received - 400 * 86_400_000);
  assert.equal(lineTime(received + 86_400_000, received, 0), received + 86_400_000, 'up to a day ahead is kept');
  assert.equal(lineTime(received + 2 * 86_400_000, received, 0), received);
});
