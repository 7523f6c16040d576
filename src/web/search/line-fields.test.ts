import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LogLine } from '../api-client/client.js';
import { collectFields, detailRows, display, fieldLeaves, fieldValue, levelClass, lineFields, lineText, parsedJson, rowValues, storedFields } from './line-fields.js';

const line = (fields: Partial<LogLine>): LogLine => ({ _id: 'id', _ts: 0, timestamp: '1970-01-01T00:00:00.000Z', _line: 'text', _app: 'api', _host: 'web-1', level: 'INFO', ...fields });
const sent = { msg: 'checkout done', user: { id: 42, tags: ['a', 'b'] }, empty: {} };
// As export records carry them: the stored fields (`user` stored as `_user`) at the top level beside the record's own keys.
const json = line({ _line: JSON.stringify(sent), _logtype: 'json', msg: sent.msg, _user: sent.user, empty: sent.empty, meta: { order: { id: 7 } }, tags: ['prod'] });
/** An nginx access line as its export record reads: `status` stored as `_status`, and an agent's pid. */
const nginx = line({
  _line: '10.0.0.7 - - [26/Nov/2026:10:00:00 +0000] "GET /cart HTTP/1.1" 502 17 "-" "curl/8.5"',
  _logtype: 'nginx',
  _ip: '',
  client: '10.0.0.7',
  _method: 'GET',
  _path: '/cart',
  _status: 502,
  bytes_sent: 17,
  pid: 31,
});
const logfmt = line({ _line: 'at=info status=404 dur=12ms', _logtype: 'logfmt', at: 'info', _status: 404, dur: '12ms' });

describe("a line's fields", () => {
  test('a JSON line parses once; other lines are not JSON', () => {
    assert.deepEqual(parsedJson(json), sent);
    assert.equal(parsedJson(json), parsedJson(json), 'cached');
    assert.deepEqual(parsedJson(line({ _line: 'prefix {"a":1}' })), { a: 1 }, 'from the first brace, as ingest reads it');
    assert.equal(parsedJson(line({ _line: '{not json' })), null);
    assert.equal(parsedJson(line({ _line: '[1,2]' })), null);
  });

  test("a line's stored fields come from its record, by search names, whatever format it arrived in", () => {
    assert.deepEqual(storedFields(json), { msg: sent.msg, _user: sent.user, empty: {} });
    const named = (of: LogLine) => Object.fromEntries(lineFields(of).map((leaf) => [leaf.path, leaf.value]));
    assert.deepEqual(named(nginx), { client: '10.0.0.7', method: 'GET', path: '/cart', status: 502, bytes_sent: 17 }, 'no record keys, no extra pid');
    assert.deepEqual(named(logfmt), { at: 'info', status: 404, dur: '12ms' });
    const jsonWithPid = line({ _line: '{"msg":"up","pid":9}', _logtype: 'json', msg: 'up', pid: 9 });
    assert.deepEqual(named(jsonWithPid), { msg: 'up', pid: 9 }, "a JSON line's own pid is a field");
  });

  test('leaves by search name; arrays and empty objects are leaves; a key no name reaches is not searchable', () => {
    assert.deepEqual(fieldLeaves({ a: { b: 1, c: [1, 2] }, d: {} }, 'meta'), [
      { path: 'meta.a.b', searchable: true, value: 1 },
      { path: 'meta.a.c', searchable: true, value: [1, 2] },
      { path: 'meta.d', searchable: true, value: {} },
    ]);
    assert.deepEqual(fieldLeaves({ _status: 200, _tag: 'x', host: 'h', 'a b': 1 }, 'fields'), [
      { path: 'status', searchable: true, value: 200 },
      { path: '_tag', searchable: true, value: 'x' },
      { path: 'host', searchable: false, value: 'h' },
      { path: 'a b', searchable: false, value: 1 },
    ]);
    assert.deepEqual(fieldLeaves(undefined, 'meta'), []);
  });

  test('a JSON line reads as its message and its other fields; a parsed text line as itself and its fields', () => {
    assert.deepEqual(lineText(json), {
      message: 'checkout done',
      fields: [
        { path: 'user.id', searchable: true, value: 42 },
        { path: 'user.tags', searchable: true, value: ['a', 'b'] },
        { path: 'empty', searchable: true, value: {} },
      ],
      json: true,
    });
    assert.deepEqual(lineText(line({ _line: '{"status":200}', _logtype: 'json', _status: 200 })), { message: '{"status":200}', fields: [{ path: 'status', searchable: true, value: 200 }], json: false }, 'no message field');
    const text = lineText(logfmt);
    assert.equal(text.message, logfmt._line);
    assert.deepEqual(text.fields.map((leaf) => `${leaf.path}=${leaf.value}`), ['at=info', 'status=404', 'dur=12ms']);
    assert.deepEqual(lineText(line({})).fields, [], 'a plain line has none');
  });

  test('values by search name: built-in fields, meta paths and JSON paths', () => {
    assert.equal(fieldValue(json, 'host'), 'web-1');
    assert.deepEqual(fieldValue(json, 'tag'), ['prod']);
    assert.equal(fieldValue(json, 'file'), '');
    assert.equal(fieldValue(json, 'meta.order.id'), 7);
    assert.equal(fieldValue(json, 'user.id'), 42);
    assert.equal(fieldValue(json, 'user.id.deeper'), undefined);
    assert.equal(fieldValue(line({}), 'user.id'), undefined);
    assert.equal(fieldValue(nginx, 'status'), 502, 'a reserved name reads its stored _status');
    assert.equal(fieldValue(nginx, 'path'), '/cart');
    assert.equal(fieldValue(logfmt, 'status'), 404);
    assert.equal(fieldValue(nginx, '_line'), undefined, 'a record key is no field');
    assert.equal(fieldValue(nginx, 'size'), undefined);
    assert.equal(fieldValue({ ...nginx, _mezmo_line_size: 80 }, '_mezmo_line_size'), 80);
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
    collectFields([nginx, logfmt], names, read);
    assert.deepEqual([...names].sort(), ['at', 'bytes_sent', 'client', 'dur', 'method', 'path', 'status']);
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
        ['_logtype', undefined],
        ['_ip', undefined],
      ],
    );
    assert.ok(!detailRows(line({ tags: [] })).some((row) => row.label === 'tag'), 'no tags, no row');
    assert.deepEqual(
      detailRows(nginx).map((row) => [row.label, row.field, row.value]).slice(4),
      [
        ['client', 'client', '10.0.0.7'],
        ['method', 'method', 'GET'],
        ['path', 'path', '/cart'],
        ['status', 'status', 502],
        ['bytes_sent', 'bytes_sent', 17],
        ['_logtype', undefined, 'nginx'],
        ['pid', undefined, 31],
      ],
      "a parsed text line's fields are rows with filters; an agent's pid is shown without one",
    );
  });
});
