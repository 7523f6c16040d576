import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { timeFormats } from '../shared/time-formats.js';
import { describeInterval, niceMax, segments, timeTicks } from './histogram-scale.js';

describe("the timeline's scale", () => {
  test('a bar in words, rounding off the server\'s fraction of a millisecond', () => {
    assert.equal(describeInterval(60_000), '1 minute');
    assert.equal(describeInterval(59_999.6), '1 minute');
    assert.equal(describeInterval(30_000), '30 seconds');
    assert.equal(describeInterval(2 * 3_600_000), '2 hours');
    assert.equal(describeInterval(86_400_000), '1 day');
    assert.equal(describeInterval(90_000), '90 seconds');
    assert.equal(describeInterval(250), '250 ms');
  });

  test('the count axis tops at 1, 2 or 5 times a power of ten, and even', () => {
    assert.deepEqual([1, 3, 7, 12, 180, 501].map(niceMax), [2, 6, 10, 20, 200, 1000]);
  });

  test('ticks fall on round times, about one per 110 pixels', () => {
    const utc = timeFormats('UTC');
    const from = Date.UTC(2026, 0, 1, 10, 3);
    const ticks = timeTicks(from, from + 3_600_000, 660, utc);
    assert.deepEqual(
      ticks.map((tick) => new Date(tick.at).toISOString().slice(11, 16)),
      ['10:10', '10:20', '10:30', '10:40', '10:50', '11:00'],
    );
    assert.ok(ticks.every((tick) => /\d{1,2}:\d{2}/.test(tick.label)));
    const days = timeTicks(from, from + 6 * 86_400_000, 660, utc);
    assert.ok(days.every((tick) => new Date(tick.at).getUTCHours() === 0 && !/:/.test(tick.label)), 'day ticks at midnight, labelled by day');
  });

  test('a bar in level segments, the unknown levels as "other"', () => {
    const parts = segments({ ts: 0, count: 9, levels: { ERROR: 2, WARNING: 1, INFO: 3, '': 1, CUSTOM: 2 } });
    assert.deepEqual(
      parts.map((part) => [part.name, part.count]),
      [['fatal', 0], ['error', 2], ['warn', 1], ['info', 3], ['debug', 0], ['other', 3]],
    );
  });
});
