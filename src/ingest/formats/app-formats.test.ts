import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';
import * as dockerModule from './docker.js';
import { tailRecordLine } from './fluent-bit-tail.js';
import * as sample from './samples.js';

test('Heroku router lines: logfmt with connect and service in ms, the host as http_host, the level from at', () => {
  const ok = parseFormat(sample.HEROKU_ROUTER, '');
  assert.equal(ok?.logtype, 'heroku');
  assert.equal(ok?.level, 'INFO');
  assert.deepEqual(ok?.fields, {
    at: 'info', _method: 'GET', _path: '/', request_id: '8601b555-6a83-4c12-8269-97c8e32cdb22', fwd: '204.204.204.204', dyno: 'web.1',
    _status: 200, _bytes: 13, protocol: 'https', connect_ms: 1, service_ms: 18, http_host: 'myapp.herokuapp.com',
  });
  const timeout = parseFormat(sample.HEROKU_ROUTER_ERROR, '');
  assert.equal(timeout?.level, 'ERROR');
  assert.equal(timeout?.fields?.code, 'H12');
  assert.equal(timeout?.fields?.service_ms, 30000);
  const cli = parseFormat(sample.HEROKU_CLI, '');
  assert.equal(cli?.logtype, 'heroku');
  assert.equal(cli?.ts, Date.parse('2026-11-28T10:00:00.123Z'));
  const drain = parseFormat(`<158>1 2026-11-28T10:00:00.123+00:00 host heroku router - ${sample.HEROKU_ROUTER}`, '');
  assert.equal(drain?.logtype, 'heroku');
  assert.equal(drain?.fields?.service_ms, 18);
  assert.equal(parseFormat('level=info msg=hello', '')?.logtype, 'logfmt');
});

test("Rails' request lines: method, path and address; controller and action; status and durations", () => {
  const [started, processing, completed] = sample.RAILS.map((line) => parseFormat(line, ''));
  assert.equal(started?.logtype, 'rails');
  assert.deepEqual(started?.fields, { _method: 'GET', _path: '/articles', remote_addr: '127.0.0.1', message: sample.RAILS[0] });
  assert.equal(started?.ts, Date.parse('2019-12-04T21:02:31Z'));
  assert.deepEqual(processing?.fields, { controller: 'ArticlesController', action: 'index', format: 'HTML', message: sample.RAILS[1] });
  assert.deepEqual(completed?.fields, { _status: 200, status_text: 'OK', duration_ms: 5, views_ms: 3.2, activerecord_ms: 0.5, allocations: 1234, message: sample.RAILS[2] });
  const tagged = parseFormat(sample.RAILS_TAGGED, '');
  assert.equal(tagged?.logtype, 'rails');
  assert.equal(tagged?.fields?.request_id, '7c4b8d5e-2f0a-4a8b-9c1d-3e5f6a7b8c9d');
  assert.equal(tagged?.fields?._status, 500);
  assert.equal(tagged?.fields?.activerecord_ms, 1.1);
  assert.equal(tagged?.fields?.gc_ms, 0.2);
  const ruby = parseFormat(sample.RAILS_RUBY_LOGGER, '');
  assert.equal(ruby?.logtype, 'rails');
  assert.equal(ruby?.level, 'INFO');
  assert.equal(ruby?.fields?.pid, 4242);
  assert.equal(ruby?.fields?._method, 'POST');
  assert.equal(parseFormat('Started the engine', '')?.logtype ?? null, null);
});

test('Java: Tomcat with its trace, logback with a trace, an uncaught exception; the trace stays in the line', () => {
  const tomcat = parseFormat(sample.TOMCAT_TRACE, '');
  assert.equal(tomcat?.logtype, 'java');
  assert.equal(tomcat?.level, 'SEVERE');
  assert.deepEqual(tomcat?.fields, {
    thread: 'http-nio-8080-exec-1', logger: 'org.apache.catalina.core.StandardWrapperValve.invoke',
    message: 'Servlet.service() for servlet [dispatcher] threw exception',
    exception: 'java.lang.IllegalStateException', exception_message: 'order 42 has no lines',
    frame: 'com.example.shop.OrderService.total(OrderService.java:57)', root_cause: 'java.sql.SQLException',
  });
  const logback = parseFormat(sample.LOGBACK_TRACE, '');
  assert.equal(logback?.logtype, 'java');
  assert.equal(logback?.level, 'ERROR');
  assert.equal(logback?.fields?.exception, 'java.lang.IllegalArgumentException');
  const uncaught = parseFormat(sample.UNCAUGHT, '');
  assert.equal(uncaught?.logtype, 'java');
  assert.deepEqual(uncaught?.fields, { thread: 'main', exception: 'java.lang.ArithmeticException', exception_message: '/ by zero', frame: 'Main.main(Main.java:3)' });
  const bare = parseFormat('java.lang.IllegalStateException: boom\n\tat A.b(A.java:1)', '');
  assert.equal(bare?.fields?.exception, 'java.lang.IllegalStateException');
  assert.equal(parseFormat('2026-11-28T10:00:00Z ERROR no trace here', '')?.logtype, null);
});

test('Go panics and fatal errors: message, goroutine, first frame', () => {
  const panic = parseFormat(sample.GO_PANIC, '');
  assert.equal(panic?.logtype, 'go');
  assert.equal(panic?.level, 'FATAL');
  assert.deepEqual(panic?.fields, { panic: 'runtime error: index out of range [5] with length 3', goroutine: 1, goroutine_state: 'running', function: 'main.main', location: '/tmp/sandbox/prog.go:9' });
  const deadlock = parseFormat(sample.GO_DEADLOCK, '');
  assert.deepEqual(deadlock?.fields, { fatal_error: 'all goroutines are asleep - deadlock!', goroutine: 1, goroutine_state: 'chan receive', function: 'main.(*Shop).Wait', location: '/app/shop.go:21' });
  assert.equal(parseFormat('panic: at the disco', ''), null);
});

test("cron: Debian cron's syslog lines, with or without the header", () => {
  const job = parseFormat(sample.CRON, '');
  assert.equal(job?.logtype, 'cron');
  assert.equal(job?.app, 'CRON');
  assert.equal(job?.host, 'web-1');
  assert.deepEqual(job?.fields, { pid: 12345, message: '(root) CMD (cd / && run-parts --report /etc/cron.hourly)', _user: 'root', action: 'CMD', command: 'cd / && run-parts --report /etc/cron.hourly' });
  const bare = parseFormat('CRON[1234]: (root) CMD (echo hi)', '');
  assert.equal(bare?.logtype, 'cron');
  assert.equal(bare?.fields?.command, 'echo hi');
  const daemon = parseFormat('<78>Nov 28 10:00:00 cron[77]: (CRON) INFO (pidfile fd = 3)', '');
  assert.equal(daemon?.logtype, 'cron');
  assert.equal(daemon?.fields?.detail, 'pidfile fd = 3');
});

test('AWS ALB (its documented examples): AWS names, numbers as numbers, and status, method, path', () => {
  const http = parseFormat(sample.ALB_HTTP, '');
  assert.equal(http?.logtype, 'alb');
  assert.equal(http?.ts, Date.parse('2018-07-02T22:23:00.186Z'));
  const fields = http?.fields ?? {};
  assert.equal(fields._type, 'http');
  assert.equal(fields.elb, 'app/my-loadbalancer/50dc6c495c0c9188');
  assert.equal(fields.client_ip, '192.168.131.39');
  assert.equal(fields.client_port, 2817);
  assert.equal(fields.target_ip, '10.0.0.1');
  assert.equal(fields.target_processing_time, 0.001);
  assert.equal(fields.elb_status_code, 200);
  assert.equal(fields._status, 200);
  assert.equal(fields.received_bytes, 34);
  assert.equal(fields.sent_bytes, 366);
  assert.equal(fields._method, 'GET');
  assert.equal(fields._path, 'http://www.example.com:80/');
  assert.equal(fields.user_agent, 'curl/7.46.0');
  assert.equal(fields.trace_id, 'Root=1-58337262-36d228ad5d99923122bbe354');
  assert.equal(fields.matched_rule_priority, 0);
  assert.equal(fields.actions_executed, 'forward');
  assert.equal(fields.conn_trace_id, 'TID_1234abcd5678ef90');
  assert.equal(fields.ssl_cipher, undefined, '- is left out');
  const https = parseFormat(sample.ALB_HTTPS, '');
  assert.equal(https?.fields?.ssl_protocol, 'TLSv1.2');
  assert.equal(https?.fields?.domain_name, 'www.example.com');
  const failed = parseFormat(sample.ALB_502, '');
  assert.equal(failed?.fields?._status, 502);
  assert.equal(failed?.fields?.target_processing_time, -1);
  assert.equal(failed?.fields?.target_status_code, undefined);
  assert.equal(failed?.fields?.error_reason, 'TargetResponseError');
});

test('CloudFront standard logs (its documented examples): W3C names, the UTC time, URL-decoded agent', () => {
  const hit = parseFormat(sample.CLOUDFRONT_HIT, '');
  assert.equal(hit?.logtype, 'cloudfront');
  assert.equal(hit?.ts, Date.parse('2019-12-04T21:02:31Z'));
  const fields = hit?.fields ?? {};
  assert.equal(fields.x_edge_location, 'LAX1');
  assert.equal(fields.sc_bytes, 392);
  assert.equal(fields.c_ip, '192.0.2.100');
  assert.equal(fields.sc_status, 200);
  assert.equal(fields._status, 200);
  assert.equal(fields._method, 'GET');
  assert.equal(fields._path, '/index.html');
  assert.equal(fields.time_taken, 0.001);
  assert.equal(fields.x_edge_result_type, 'Hit');
  assert.equal(fields.sc_content_type, 'text/html');
  assert.match(String(fields.cs_user_agent), /^Mozilla\/5\.0 \(Windows NT 10\.0/);
  const error = parseFormat(sample.CLOUDFRONT_ERROR, '');
  assert.equal(error?.fields?._status, 502);
  assert.equal(error?.fields?.x_edge_detailed_result_type, 'OriginDnsError');
  assert.equal(parseFormat('#Fields: date time x-edge-location', ''), null);
});

test("Docker's json-file lines are unwrapped to the program's own line", () => {
  const { dockerLine } = dockerModule;
  assert.deepEqual(dockerLine(JSON.parse(sample.DOCKER)), { inner: 'Log line is here', stream: 'stdout', ts: Date.parse('2019-01-01T11:11:11.111Z') });
  assert.equal(dockerLine({ log: 'x', stream: 'stdout', time: '2019-01-01T11:11:11Z', other: 1 }), null, 'another JSON line with a log key');
  assert.equal(dockerLine({ log: 'x', stream: 'elsewhere', time: '2019-01-01T11:11:11Z' }), null);
});

test("Fluent Bit's tail records give the file's line inside, and only when they hold nothing else", () => {
  assert.equal(tailRecordLine({ log: 'level=info msg=hi\r\n' }), 'level=info msg=hi');
  assert.equal(tailRecordLine({ log: 'x', level: 'warn' }), null, 'a record with other keys is JSON of its own');
  assert.equal(tailRecordLine({ log: 7 }), null);
  assert.equal(tailRecordLine({ log: '\n' }), null, 'nothing inside to parse');
  assert.equal(tailRecordLine({ message: 'x' }), null);
});
