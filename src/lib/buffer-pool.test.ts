import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferPool, MAX_POOLED_BYTES, MIN_POOLED_BYTES } from './buffer-pool.js';

test('a buffer given back is the one the next take of its size class gets', () => {
  const pool = new BufferPool(8 * 1024 * 1024);
  const first = pool.take(300 * 1024);
  assert.equal(first.length, 512 * 1024, 'sizes are rounded up to a power of two');
  pool.give(first);
  assert.equal(pool.waitingBytes, 512 * 1024);
  assert.equal(pool.take(400 * 1024), first, 'taken again rather than allocated');
  assert.equal(pool.waitingBytes, 0);
  assert.notEqual(pool.take(400 * 1024), first, 'a buffer is handed to one taker at a time');
});

test('below the smallest class a buffer is allocated at the size asked and never kept', () => {
  const pool = new BufferPool(8 * 1024 * 1024);
  const small = pool.take(300);
  assert.equal(small.length, 300, 'a one-line request does not hold a pooled buffer');
  assert.equal(pool.keeps(small), false);
  pool.give(small);
  assert.equal(pool.waitingBytes, 0);
  assert.equal(pool.take(MIN_POOLED_BYTES - 1).length, MIN_POOLED_BYTES - 1);
  assert.equal(pool.keeps(pool.take(MIN_POOLED_BYTES)), true);
});

test('slices, foreign sizes and buffers past the bound are left to the collector', () => {
  const pool = new BufferPool(MIN_POOLED_BYTES * 2);
  const whole = pool.take(MIN_POOLED_BYTES);
  pool.give(whole.subarray(0, 100));
  pool.give(Buffer.allocUnsafe(100 * 1024));
  pool.give(Buffer.allocUnsafe(MAX_POOLED_BYTES * 2));
  assert.equal(pool.waitingBytes, 0);
  const huge = pool.take(MAX_POOLED_BYTES + 1);
  assert.equal(huge.length, MAX_POOLED_BYTES + 1, 'past the largest class: exactly as asked, never kept');
  pool.give(huge);
  assert.equal(pool.waitingBytes, 0);
  pool.give(whole);
  pool.give(pool.take(MIN_POOLED_BYTES * 2));
  assert.equal(pool.waitingBytes, MIN_POOLED_BYTES, 'the second would pass the bound of two classes');
});
