import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FieldSummary } from '../api-client/client.js';
import { fieldCountText, findFields, sharePercent, shareText, statText } from './field-list.js';

const field = (name: string): FieldSummary => ({ name, type: 'string', lines: 1, top: [] });

test('a typed filter keeps the fields whose names hold it, in any case', () => {
  const fields = [field('status'), field('meta.customer'), field('user.Status')];
  assert.deepEqual(findFields(fields, ' STATUS ').map((found) => found.name), ['status', 'user.Status']);
  assert.equal(findFields(fields, '').length, 3);
});

test("the header counts the fields listed, of all of them when a filter hides some", () => {
  assert.equal(fieldCountText(10, 10), '10');
  assert.equal(fieldCountText(1, 10), '1 of 10');
  assert.equal(fieldCountText(0, 1200), '0 of 1,200');
});

test('shares as bars and as text; stats short', () => {
  assert.equal(sharePercent(1, 4), 25);
  assert.equal(sharePercent(3, 0), 0);
  assert.equal(shareText(1, 1), '100%');
  assert.equal(shareText(42, 100), '42%');
  assert.equal(shareText(4, 1000), '0.4%');
  assert.equal(shareText(1, 100_000), '<0.1%');
  assert.equal(shareText(0, 10), '0%');
  assert.equal(statText(1234567), '1,234,567');
  assert.equal(statText(448.8766), '449');
  assert.equal(statText(0.012345), '0.0123');
});
