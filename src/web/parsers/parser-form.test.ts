import assert from 'node:assert/strict';
import { test } from 'node:test';
import { captureNames, listText, parseList } from './parser-form.js';

test('captureNames lists each named capture once, in order, both spellings, not escaped parentheses', () => {
  assert.deepEqual(captureNames('^(?P<method>\\w+) (?<path>\\S+) (?P<method>x) \\(?P<nope>y)'), ['method', 'path']);
  assert.deepEqual(captureNames('(a)(?:b)'), []);
});

test('lists round-trip through their text', () => {
  assert.deepEqual(parseList(' a, b ,,c '), ['a', 'b', 'c']);
  assert.equal(listText(['a', 'b']), 'a, b');
});
