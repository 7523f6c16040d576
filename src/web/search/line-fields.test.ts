import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LogLine } from '../api-client/client.js';
import { collectFields, detailRows, display, fieldValue, jsonMessage, leaves, levelClass, parsedJson, rowValues } from './line-fields.js';

const line = (fields: Partial<LogLine>): LogLine => ({ _id: 'id', _ts: 0, timestamp: '1970-01-01T00:00:00.000Z', _line: 'text', _app: 'api', _host: 'web-1', level: 'INFO', ...fields });
const json = line({ _line: JSON.stringify({ msg: 'checkout done', user: { id: 42, tags: ['a', 'b'] }, empty: {} }), meta: { order: { id: 7 } }, tags: ['prod'] });

describe("a line's fields", () => {
  test('a JSON line parses once; other lines are not JSON', () => {
    assert.deepEqual(parsedJson(json), { msg: 'checkout done', user: { id: 42, tags: ['a', 'b'] }, empty: {} });
    assert.equal(parsedJson(json), parsedJson(json), 'cached');
    assert.equal(parsedJson(line({ _line: '{not json' })), null);
    assert.equal(parsedJson(line({ _line: '[1,2]' })), null);
  });

  test('leaves by dot path; arrays and empty objects are leaves', () => {
    assert.deepEqual(leaves({ a: { b: 1, c: [1, 2] }, d: {} }, 'meta'), [
      { path: 'meta.a.b', value: 1 },
      { path: 'meta.a.c', value: [1, 2] },
      { path: 'meta.d', value: {} },
    ]);
  });

  test('a JSON line reads as its message and its other fields', () => {
    assert.deepEqual(jsonMessage(json), { message: 'checkout done', fields: [{ path: 'user.id', value: 42 }, { path: 'user.tags', value: ['a', 'b'] }, { path: 'empty', value: {} }] });
    assert.equal(jsonMessage(line({ _line: '{"status":200}' })), null, 'no message field');
  });

  test('values by search name: built-in fields, meta paths and JSON paths', () => {
    assert.equal(fieldValue(json, 'host'), 'web-1');
    assert.deepEqual(fieldValue(json, 'tag'), ['prod']);
    assert.equal(fieldValue(json, 'file'), '');
    assert.equal(fieldValue(json, 'meta.order.id'), 7);
    assert.equal(fieldValue(json, 'user.id'), 42);
    assert.equal(fieldValue(json, 'user.id.deeper'), undefined);
    assert.equal(fieldValue(line({}), 'user.id'), undefined);
  });

  test('values as text', () => {
    assert.equal(display(undefined), '');
    assert.equal(display('x'), 'x');
    assert.equal(display(['a', 1, null]), 'a, 1, ');
    assert.equal(display({ a: 1 }), '{"a":1}');
    assert.deepEqual(rowValues(['a', 'b']), ['a', 'b']);
    assert.deepEqual(rowValues([{ a: 1 }]), ['[{"a":1}]']);
    assert.deepEqual(rowValues(3), ['3']);
  });

  test('field names are collected once per line', () => {
    const names = new Set<string>();
    const read = new WeakSet<LogLine>();
    collectFields([json], names, read);
    assert.deepEqual([...names].sort(), ['empty', 'meta.order.id', 'msg', 'user.id', 'user.tags']);
    names.clear();
    collectFields([json], names, read);
    assert.equal(names.size, 0, 'a line read before is skipped');
  });

  test('levels as colours', () => {
    assert.equal(levelClass('critical'), 'level-fatal');
    assert.equal(levelClass('Error'), 'level-error');
    assert.equal(levelClass('warn'), 'level-warn');
    assert.equal(levelClass('WARNING'), 'level-other');
    assert.equal(levelClass('trace'), 'level-debug');
    assert.equal(levelClass(''), 'level-other');
  });

  test("an expanded line's rows: built-in, JSON and meta fields searchable by name, empty ones left out", () => {
    const rows = detailRows({ ...json, _mezmo_line_size: 80, _ip: '10.0.0.1' });
    assert.deepEqual(
      rows.map((row) => [row.label, row.field]),
      [
        ['timestamp', undefined],
        ['host', 'host'],
        ['app', 'app'],
        ['level', 'level'],
        ['tag', 'tag'],
        ['msg', 'msg'],
        ['user.id', 'user.id'],
        ['user.tags', 'user.tags'],
        ['empty', 'empty'],
        ['meta.order.id', 'meta.order.id'],
        ['_mezmo_line_size', '_mezmo_line_size'],
        ['_ip', undefined],
      ],
    );
    assert.ok(!detailRows(line({ tags: [] })).some((row) => row.label === 'tag'), 'no tags, no row');
  });
});
