import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { editDistance, queryHints } from './query-hints.js';

describe('query hints', () => {
  test('a field no line has, with the nearest real name when one is close', () => {
    assert.deepEqual(queryHints('tags:prod', new Set()), ['No line shown has a field "tags": did you mean tag:?']);
    assert.deepEqual(queryHints('regin:eu', new Set(['region'])), ['No line shown has a field "regin": did you mean region:?']);
    assert.deepEqual(queryHints('regoin:eu', new Set(['region'])), ['No line shown has a field "regoin"; it may match nothing.'], 'two edits is too far for a short name');
    assert.deepEqual(queryHints('colour:red', new Set(['region'])), ['No line shown has a field "colour"; it may match nothing.']);
  });

  test('names the search always knows, and names lines have (or have under them), need no hint', () => {
    assert.deepEqual(queryHints('host:a app:b level:c tag:d _line_size>1', new Set()), []);
    assert.deepEqual(queryHints('user.id:3 _status:200 meta.order:*', new Set(['user.id', 'status', 'meta.order.id'])), []);
  });

  test('a * inside a word is explained once per word', () => {
    const hints = queryHints('fail* fail* ok', new Set());
    assert.equal(hints.length, 1);
    assert.match(hints[0], /"\*" is not a wildcard inside a word \("fail\*"\)/);
  });

  test('edit distance', () => {
    assert.equal(editDistance('tags', 'tag'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
  });
});
