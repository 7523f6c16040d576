import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, percentile } from './stats.js';

test('the median of an odd count is its middle value, whatever the order', () => {
  assert.equal(median([41_264, 43_563, 40_910]), 41_264);
  assert.equal(median([5]), 5);
});

test('the median of an even count is the mean of the two middle values, not the higher one', () => {
  assert.equal(median([610, 615]), 612.5);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('the median and percentiles of nothing are not a number', () => {
  assert.ok(Number.isNaN(median([])));
  assert.ok(Number.isNaN(percentile([], 99)));
});

test('a percentile is the nearest rank at or above it', () => {
  const sorted = Array.from({ length: 100 }, (_, index) => index + 1);
  assert.equal(percentile(sorted, 50), 51);
  assert.equal(percentile(sorted, 99), 100);
  assert.equal(percentile(sorted, 100), 100);
});
