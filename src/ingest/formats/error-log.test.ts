import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseApacheError, parseNginxError } from './error-log.js';
import { parseFormat } from './index.js';

test('nginx error log lines written by nginx 1.22: level, process, connection and the request context', () => {
  const parsed = parseNginxError('2026/11/26 15:53:23 [error] 10646#10646: *2 open() "/tmp/parsing-nginx/www/missing.png" failed (2: No such file or directory), client: 127.0.0.1, server: , request: "GET /missing.png HTTP/1.1", host: "127.0.0.1:18089", referrer: "http://ref.example/a?b=1"');
  assert.ok(parsed);
  assert.equal(parsed.logtype, 'nginx');
  assert.equal(parsed.level, 'ERROR');
  assert.deepEqual(parsed.fields, {
    pid: 10646, tid: 10646, connection: 2, referrer: 'http://ref.example/a?b=1', http_host: '127.0.0.1:18089',
    _method: 'GET', _path: '/missing.png', _request: 'GET /missing.png HTTP/1.1', client: '127.0.0.1',
    message: 'open() "/tmp/parsing-nginx/www/missing.png" failed (2: No such file or directory)',
  });
  const notice = parseFormat('2026/11/26 15:53:22 [notice] 10644#10644: start worker processes', '');
  assert.equal(notice?.level, 'NOTICE');
  assert.equal(notice?.fields?.message, 'start worker processes');
  assert.equal(parseFormat('2026/11/26 15:53:23 [warn] 1#1: *9 an upstream response is buffered', '')?.level, 'WARN');
  assert.equal(parseFormat('2026/11/26 15:53:23 [bogus] 1#1: x', ''), null);
});

test('Apache 2.4 and 2.2 error log lines (the formats documented at httpd.apache.org/docs/2.4/logs.html)', () => {
  const modern = parseApacheError('[Fri Sep 09 10:42:29.902022 2011] [core:error] [pid 35708:tid 4328636416] [client 72.15.99.187] File does not exist: /usr/local/apache2/htdocs/favicon.ico');
  assert.ok(modern);
  assert.equal(modern.logtype, 'apache');
  assert.equal(modern.level, 'ERROR');
  assert.deepEqual(modern.fields, { module: 'core', pid: 35708, tid: 4328636416, client: '72.15.99.187', message: 'File does not exist: /usr/local/apache2/htdocs/favicon.ico' });
  const coded = parseFormat('[Thu Nov 26 10:00:00.123456 2026] [authz_core:warn] [pid 12] [client 10.0.0.1:5678] AH01630: client denied by server configuration: /srv/x', '');
  assert.equal(coded?.level, 'WARN');
  assert.equal(coded?.fields?.error_code, 'AH01630');
  const old = parseFormat('[Wed Oct 11 14:32:52 2000] [error] [client 127.0.0.1] client denied by server configuration: /export/home/live/ap/htdocs/test', '');
  assert.deepEqual(old?.fields, { client: '127.0.0.1', message: 'client denied by server configuration: /export/home/live/ap/htdocs/test' });
  assert.equal(parseFormat('[Thu Nov 26 10:00:00 2026] [ssl:trace3] [pid 1] handshake', '')?.level, 'TRACE');
  assert.equal(parseApacheError('[Thu Nov 26 10:00:00 2026] [nothing] x'), null);
});

test('Apache 2.4.71 error log lines written on this machine: errno before the code, a referrer after the message', () => {
  const errno = parseFormat('[Thu Nov 26 16:21:19.867869 2026] [mime:error] [pid 3588:tid 3588] (2)No such file or directory: AH01597: could not open mime types config file /etc/apache2/mime.types.', 'apache2');
  assert.equal(errno?.level, 'ERROR');
  assert.equal(errno?.fields?.error_code, 'AH01597');
  const missing = parseFormat('[Thu Nov 26 16:21:29.449411 2026] [core:info] [pid 4007:tid 4015] [client 127.0.0.1:45256] AH00128: File does not exist: /tmp/parsing-apache/www/missing, referer: http://ref.example/', 'apache2');
  assert.deepEqual(missing?.fields, {
    module: 'core', pid: 4007, tid: 4015, client: '127.0.0.1:45256', error_code: 'AH00128', referrer: 'http://ref.example/',
    message: 'AH00128: File does not exist: /tmp/parsing-apache/www/missing',
  });
  assert.equal(missing?.level, 'INFO');
  assert.equal(parseFormat('[Thu Nov 26 16:21:28.265007 2026] [unixd:alert] [pid 4007:tid 4007] AH02155: getpwuid: x', '')?.level, 'ALERT');
  assert.equal(parseFormat('[Thu Nov 26 16:21:28.269480 2026] [mpm_event:notice] [pid 4005:tid 4005] AH00489: Apache/2.4.71 (Debian) configured', '')?.level, 'NOTICE');
});
