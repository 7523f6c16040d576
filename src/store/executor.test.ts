import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadBytes } from './executor.js';

test('payloadBytes: one buffer is the payload itself, and parts are joined in order', () => {
  const one = Buffer.from('a\tb\n');
  assert.equal(payloadBytes(one), one);
  assert.equal(payloadBytes([Buffer.from('x\n'), Buffer.from('yz\n')]).toString(), 'x\nyz\n');
});

test('payloadBytes into a larger target: the parts fill its start, and its old bytes past them are not in the view', () => {
  const target = Buffer.alloc(64, 'Q');
  const joined = payloadBytes([Buffer.from('first\n'), Buffer.from('second\n')], target);
  assert.equal(joined.toString(), 'first\nsecond\n');
  assert.equal(joined.length, 13);
  // The view is the target's memory, not a copy: no buffer of the payload's size was made.
  assert.equal(joined.buffer, target.buffer);
  assert.equal(joined.byteOffset, target.byteOffset);
  assert.equal(target.subarray(13).toString(), 'Q'.repeat(51));
});
