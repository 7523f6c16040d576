import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonLine } from './json-line.js';
import { detectLevel, lineLevel } from './level.js';
import { truncateUtf8 } from './normalise.js';

test('detectLevel finds level words near the start of a line', () => {
  assert.equal(detectLevel('Nov 22 12:00:01 db1 postgres[12]: FATAL: too many clients'), 'FATAL');
  assert.equal(detectLevel('[warning] cache miss'), 'WARN');
  assert.equal(detectLevel('level=err msg=boom'), 'ERROR');
  assert.equal(detectLevel('GET /errors/list 200'), '', 'a word inside a path segment is not a level');
  assert.equal(detectLevel('user logged in'), '');
  assert.equal(detectLevel(`${'x'.repeat(300)} ERROR`), '', 'only the start of long lines is scanned');
});

test('parseJsonLine parses JSON at the end of a line and renames reserved keys', () => {
  assert.deepEqual(parseJsonLine('{"message":"hi","status":200,"_retention":9}'), { message: 'hi', _status: 200 });
  assert.deepEqual(parseJsonLine('12:00 app: {"a":{"b":1}}  '), { a: { b: 1 } });
  assert.equal(parseJsonLine('{"a":1} trailing'), null);
  assert.equal(parseJsonLine('{not json}'), null);
  assert.equal(parseJsonLine('[1,2]'), null);
  assert.equal(parseJsonLine('}'), null);
});

test('parseJsonLine keeps every root key in order, renaming each reserved one and dropping the protected ones', () => {
  const fields = parseJsonLine('{"path":"/a","msg":"x","_account":"other","user":{"id":1},"timestamp":5,"level":"warn","_retention":1}');
  assert.deepEqual(Object.keys(fields ?? {}), ['_path', 'msg', '_user', '_timestamp', 'level']);
  assert.equal(JSON.stringify(fields), '{"_path":"/a","msg":"x","_user":{"id":1},"_timestamp":5,"level":"warn"}');
});

test('parseJsonLine keeps a "__proto__" key as data, not as the prototype of its fields', () => {
  const fields = parseJsonLine('{"__proto__":{"level":"error"},"msg":"x"}');
  assert.ok(fields);
  assert.equal(Object.getPrototypeOf(fields), Object.prototype);
  assert.equal(fields.level, undefined, 'no level is lent by the "__proto__" value');
  assert.equal(JSON.stringify(fields), '{"__proto__":{"level":"error"},"msg":"x"}');
});

test('truncateUtf8 never splits a character', () => {
  assert.equal(truncateUtf8('abc', 10), 'abc');
  assert.equal(truncateUtf8('ééé', 5), 'éé');
  assert.equal(truncateUtf8('a😀', 4), 'a');
  assert.equal(Buffer.byteLength(truncateUtf8('€'.repeat(10_000), 16_384)), 16_383);
});

test('lineLevel: a given level is upper-cased and cut, the same each time it recurs; none given falls back to the text', () => {
  for (let i = 0; i < 3; i++) {
    assert.equal(lineLevel('warn', 'ERROR in text'), 'WARN');
    assert.equal(lineLevel('Info', ''), 'INFO');
  }
  assert.equal(lineLevel(undefined, 'level=err boom'), 'ERROR');
  assert.equal(lineLevel('', 'FATAL: disk'), 'FATAL');
  assert.equal(lineLevel(5, 'x'), '5');
  assert.equal(lineLevel({ not: 'text' }, 'WARN here'), 'WARN');
  assert.equal(lineLevel('ß'.repeat(80), '').length, 80, 'cut again after upper-casing grows it');
  assert.equal(lineLevel('x'.repeat(500), ''), 'X'.repeat(80));
  // More distinct levels than are remembered: each still answers right.
  for (let i = 0; i < 600; i++) assert.equal(lineLevel(`lvl${i}`, ''), `LVL${i}`);
});
