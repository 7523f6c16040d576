import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { barWidth, formatBytes, formatCount } from './usage-format.js';

describe('usage figures', () => {
  test('bytes in decimal units, one decimal past bytes', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(999), '999 B');
    assert.equal(formatBytes(1000), '1.0 KB');
    assert.equal(formatBytes(1_234_567), '1.2 MB');
    assert.equal(formatBytes(5e15), '5000.0 TB');
  });

  test('counts with separators, and day bars of at least 1%', () => {
    assert.equal(formatCount(1234567), '1,234,567');
    assert.equal(barWidth(50, 200), 25);
    assert.equal(barWidth(0, 200), 1);
  });
});
