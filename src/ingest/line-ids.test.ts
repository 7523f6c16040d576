import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineIds } from './line-ids.js';

test('an id is the sequence number in decimal followed by the three-digit node slot', () => {
  const ids = new LineIds(7);
  const now = Date.now() * 1024;
  // Across a million boundary, where the shared leading digits change, and for small numbers.
  const sequences = [0, 5, 999_999, 1_000_000, 1_000_001, 123_456_789, now, now + 1, now - (now % 1_000_000) - 1, now - (now % 1_000_000), 2 ** 53 - 1];
  for (const sequence of sequences) assert.equal(ids.format(sequence), `${sequence}007`, String(sequence));
  for (let sequence = now - 3; sequence < now + 2_000_003; sequence += 997) assert.equal(ids.format(sequence), `${sequence}007`);
});

test('reserved ranges never overlap, and their ids sort by arrival', () => {
  const ids = new LineIds(0);
  const seen: bigint[] = [];
  for (let request = 0; request < 50; request++) {
    const first = ids.reserve(3000); // more than a millisecond holds: borrows from the next
    for (let i = 0; i < 3000; i += 500) seen.push(BigInt(ids.format(first + i)));
  }
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `id ${i} follows id ${i - 1}`);
  assert.throws(() => new LineIds(1000), RangeError);
});
