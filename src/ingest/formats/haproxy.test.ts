import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';
import { HAPROXY_HTTP, HAPROXY_TCP } from './samples.js';

test("HAProxy's httplog (its manual's example): client, frontend, backend, server, timers, status, bytes, request", () => {
  const parsed = parseFormat(HAPROXY_HTTP, '');
  assert.equal(parsed?.logtype, 'haproxy');
  assert.deepEqual(parsed?.fields, {
    client_ip: '10.0.1.2', client_port: 33317, frontend: 'http-in', backend: 'static', server: 'srv1',
    time_request_ms: 10, time_queue_ms: 0, time_connect_ms: 30, time_response_ms: 69, time_total_ms: 109,
    _status: 200, _bytes: 2750, termination_state: '----', actconn: 1, feconn: 1, beconn: 1, srv_conn: 1, retries: 0,
    srv_queue: 0, backend_queue: 0, _method: 'GET', _path: '/index.html', protocol: 'HTTP/1.1',
  });
});

test("HAProxy's tcplog, and either through a syslog header (HAProxy logs to syslog)", () => {
  const tcp = parseFormat(HAPROXY_TCP, '');
  assert.equal(tcp?.logtype, 'haproxy');
  assert.deepEqual(tcp?.fields, {
    client_ip: '10.0.1.2', client_port: 33313, frontend: 'fnt', backend: 'bck', server: 'srv1', time_queue_ms: 0, time_connect_ms: 0, time_total_ms: 5007,
    _bytes: 212, termination_state: '--', actconn: 0, feconn: 0, beconn: 0, srv_conn: 0, retries: 3, srv_queue: 0, backend_queue: 0,
  });
  const relayed = parseFormat(`<134>Nov 28 10:00:00 haproxy[4242]: ${HAPROXY_HTTP.replace(' -1/', ' -1/')}`, '');
  assert.equal(relayed?.logtype, 'haproxy');
  assert.equal(relayed?.app, 'haproxy');
  assert.equal(relayed?.fields?.pid, 4242);
  assert.equal(relayed?.fields?._status, 200);
  const aborted = parseFormat('127.0.0.1:5000 [28/Nov/2026:10:00:00.001] web be/<NOSRV> -1/-1/-1/-1/0 503 217 - - SC-- 1/1/0/0/0 0/0 "GET /down HTTP/1.1"', '');
  assert.equal(aborted?.fields?.time_connect_ms, -1);
  assert.equal(aborted?.fields?._status, 503);
  const other = parseFormat('<134>Nov 28 10:00:00 haproxy[4242]: Proxy web started.', '');
  assert.equal(other?.logtype, 'syslog');
});
