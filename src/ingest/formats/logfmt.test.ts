import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';
import { parseLogfmt } from './logfmt.js';

test("Go's slog TextHandler line: level and time taken, numbers as numbers, quoted values unescaped", () => {
  // slog.New(slog.NewTextHandler(os.Stdout, nil)).Info("hello world", "count", 3, "took", 12*time.Millisecond, "path", "/a b")
  const parsed = parseLogfmt('time=2026-11-26T10:00:00.123Z level=INFO msg="hello \\"world\\"" count=3 took=12ms path="/a b" ratio=0.5 id=007');
  assert.ok(parsed);
  assert.equal(parsed.logtype, 'logfmt');
  assert.equal(parsed.level, 'INFO');
  assert.equal(parsed.ts, Date.parse('2026-11-26T10:00:00.123Z'));
  assert.deepEqual(parsed.fields, { time: '2026-11-26T10:00:00.123Z', msg: 'hello "world"', count: 3, took: '12ms', _path: '/a b', ratio: 0.5, id: '007' });
});

test("a logfmt line: bare keys, reserved names renamed as a JSON line's, host left to the line", () => {
  const parsed = parseFormat('at=info method=GET path="/" host=myapp.herokuapp.com request_id=8601b555 fwd="204.204.204.204" connect=1ms status=200 bytes=13 protocol=https', 'router');
  assert.equal(parsed?.logtype, 'logfmt', 'no dyno: not a Heroku router line (app-formats.test.ts)');
  assert.deepEqual(parsed?.fields, {
    at: 'info', _method: 'GET', _path: '/', request_id: '8601b555', fwd: '204.204.204.204',
    _connect: '1ms', _status: 200, _bytes: 13, protocol: 'https',
  });
  assert.equal(parseLogfmt('level=warn msg=retrying dry_run')?.fields?.dry_run, true);
  assert.equal(parseLogfmt('lvl=eror msg=x')?.level, 'eror', 'an unknown level word is kept as the level, as a JSON line’s is');
});

test('a stack trace under a logfmt line stays in the text; only the first line is read', () => {
  const parsed = parseLogfmt('level=error msg="boom" code=7\n  at main.go:12\n  at x=y');
  assert.deepEqual(parsed?.fields, { msg: 'boom', code: 7 });
  assert.equal(parsed?.level, 'ERROR');
});

test('prose, a single pair and broken quoting stay text', () => {
  for (const line of ['user logged in key=abc', 'a=b', 'level=info msg="unclosed', 'msg="a"b c=d', 'x=1 y=2"3', '=a b=c', 'cache hit key=abc']) {
    assert.equal(parseFormat(line, ''), null, line);
  }
});
