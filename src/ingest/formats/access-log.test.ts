import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAccessLog } from './access-log.js';
import { parseFormat } from './index.js';

// Written by nginx 1.22 on this machine (log_format combined, common and combined + $request_time).
const COMBINED = '127.0.0.1 - - [26/Nov/2026:15:53:23 +0000] "GET /missing.png HTTP/1.1" 404 153 "http://ref.example/a?b=1" "Mozilla/5.0 (X11; Linux x86_64) \\x22quoted\\x22"';
const COMMON_WITH_USER = '127.0.0.1 - bob [26/Nov/2026:15:53:23 +0000] "GET /protected/x HTTP/1.1" 401 179';
const TIMED = '127.0.0.1 - - [26/Nov/2026:15:53:23 +0000] "POST /boom HTTP/1.1" 503 197 "-" "curl/7.88.1" 0.250';
// Apache's documented example (httpd.apache.org/docs/2.4/logs.html), combined, with %D microseconds appended.
const APACHE = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)" 1500000';

test('a combined access log line: request parts, status and bytes as numbers, referrer and agent unescaped, time with its zone', () => {
  const parsed = parseAccessLog(COMBINED);
  assert.ok(parsed);
  assert.equal(parsed.logtype, 'nginx');
  assert.deepEqual(parsed.fields, {
    remote_addr: '127.0.0.1', _method: 'GET', _path: '/missing.png', protocol: 'HTTP/1.1', _status: 404, _bytes: 153,
    referrer: 'http://ref.example/a?b=1', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) "quoted"',
  });
  assert.equal(parsed.ts, Date.parse('2026-11-26T15:53:23Z'));
});

test('the common format, with a user; a zone other than UTC', () => {
  assert.deepEqual(parseAccessLog(COMMON_WITH_USER)?.fields, { remote_addr: '127.0.0.1', remote_user: 'bob', _method: 'GET', _path: '/protected/x', protocol: 'HTTP/1.1', _status: 401, _bytes: 179 });
  assert.equal(parseAccessLog(APACHE)?.ts, Date.parse('2000-10-10T20:55:36Z'));
});

test('a response time: seconds as nginx writes them, whole microseconds as Apache %D, or a key=value pair', () => {
  assert.equal(parseAccessLog(TIMED)?.fields?.response_time, 0.25);
  assert.equal(parseAccessLog(APACHE)?.fields?.response_time, 1.5);
  const pairs = parseAccessLog('10.0.0.1 - - [26/Nov/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 5 "-" "x" rt=0.031 uct="0.000" upstream=10.0.0.9:80');
  assert.equal(pairs?.fields?.response_time, 0.031);
  assert.equal(pairs?.fields?.uct, 0);
  assert.equal(pairs?.fields?.upstream, '10.0.0.9:80');
});

test('"-" bytes and a garbled request are kept as nginx writes them', () => {
  const parsed = parseAccessLog('::1 - - [26/Nov/2026:10:00:00 +0000] "\\x16\\x03\\x01" 400 - "-" "-"');
  assert.deepEqual(parsed?.fields, { remote_addr: '::1', _request: '\x16\x03\x01', _status: 400 });
});

test('the app or file decides between the names apache and nginx', () => {
  assert.equal(parseFormat(APACHE, 'apache2')?.logtype, 'apache');
  assert.equal(parseFormat(APACHE, '/var/log/httpd/access_log')?.logtype, 'apache');
  assert.equal(parseFormat(COMBINED, 'web')?.logtype, 'nginx');
  assert.equal(parseFormat('www.example.com - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1', '')?.fields?.remote_addr, 'www.example.com');
});

test('lines that only look like access logs stay text', () => {
  for (const line of [
    '10.1.2.3 - - "GET /a HTTP/1.1" 200 512 words', // the bench's mix: no time
    '127.0.0.1 - - [26/Nov/2026:10:00:00] "GET / HTTP/1.1" 200 1', // no zone
    '127.0.0.1 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 20 1',
    '127.0.0.1 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1 200 1',
    '127.0.0.1 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 12x',
  ]) assert.equal(parseAccessLog(line), null, line);
});

test('Apache 2.4.71 access log lines written on this machine: quotes escaped with a backslash, %D appended', () => {
  const quoted = parseFormat('127.0.0.1 - - [26/Nov/2026:16:21:29 +0000] "GET /a%20b?x=\\"y\\" HTTP/1.1" 404 236 "-" "curl/7.88.1" 104', 'apache2');
  assert.equal(quoted?.logtype, 'apache');
  assert.equal(quoted?.fields?._path, '/a%20b?x="y"');
  assert.equal(quoted?.fields?._status, 404);
  assert.equal(quoted?.fields?.response_time, 0.000104);
  const agent = parseFormat('127.0.0.1 - - [26/Nov/2026:16:21:29 +0000] "GET /missing HTTP/1.1" 404 236 "http://ref.example/" "Mozilla/5.0 \\"q\\""', 'apache2');
  assert.equal(agent?.fields?.user_agent, 'Mozilla/5.0 "q"');
  assert.equal(agent?.fields?.referrer, 'http://ref.example/');
});

test("Apache's vhost_combined (Debian's other_vhosts_access.log): the virtual host first", () => {
  const parsed = parseFormat('www.example.com:443 10.0.0.5 - - [26/Nov/2026:16:21:29 +0000] "GET /shop HTTP/2.0" 502 0 "-" "curl/8.0"', 'apache2');
  assert.equal(parsed?.fields?.vhost, 'www.example.com:443');
  assert.equal(parsed?.fields?.remote_addr, '10.0.0.5');
  assert.equal(parsed?.fields?._status, 502);
  assert.equal(parseFormat('web:80 is not a log line', ''), null);
});
