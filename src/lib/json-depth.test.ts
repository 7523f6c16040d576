import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nestedDeeperThan } from './json-depth.js';

const nested = (levels: number, leaf: unknown = 1): unknown => {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
};

test('nestedDeeperThan counts objects and arrays as levels, scalars as none', () => {
  assert.equal(nestedDeeperThan(5, 0), false);
  assert.equal(nestedDeeperThan('x', 0), false);
  assert.equal(nestedDeeperThan(null, 0), false);
  assert.equal(nestedDeeperThan({}, 0), true);
  assert.equal(nestedDeeperThan({}, 1), false);
  assert.equal(nestedDeeperThan(nested(3), 3), false);
  assert.equal(nestedDeeperThan(nested(4), 3), true);
  assert.equal(nestedDeeperThan({ wide: Array.from({ length: 1000 }, (_, i) => ({ i })), deep: nested(63) }, 64), false);
  assert.equal(nestedDeeperThan({ wide: Array.from({ length: 1000 }, (_, i) => ({ i })), deep: nested(64) }, 64), true);
});

test('nestedDeeperThan finds the deep branch among shallow siblings, in objects and arrays', () => {
  assert.equal(nestedDeeperThan({ a: 1, b: { c: 2 }, d: [1, 2, nested(10)] }, 8), true);
  assert.equal(nestedDeeperThan([1, 'x', { y: [nested(9)] }], 8), true);
  assert.equal(nestedDeeperThan([1, 'x', { y: [nested(5)] }], 8), false);
});

test('nestedDeeperThan answers for values far deeper than the stack would allow to walk recursively', () => {
  const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
  assert.equal(nestedDeeperThan(deep, 64), true);
  assert.equal(nestedDeeperThan(JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`), 64), true);
});

test('nestedDeeperThan reads a "__proto__" key that JSON.parse made an own property', () => {
  assert.equal(nestedDeeperThan(JSON.parse(`{"__proto__": ${JSON.stringify(nested(10))}}`), 5), true);
});
