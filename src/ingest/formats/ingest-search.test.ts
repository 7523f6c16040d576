/**
 * Lines in the common formats, sent through the Mezmo ingest API, are searched by their parsed
 * fields (the same SQL the viewer and export run) and exported with those fields at the top
 * level and `_logtype` set; a syslog header sets the line's host and app; text stays text.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { type TestServer, eventually, exportRecords, ingestLines, startTestServer } from '../../testing/harness.js';
import * as sample from './samples.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_SYSLOG_TCP_PORT: '0' });
});
after(() => server.close());

/** A CLF time (`26/Nov/2026:10:00:00 +0000`) for a moment. */
function clfTime(ms: number): string {
  const [, month, day, year, time] = /^\w+ (\w+) (\d+) (\d+) ([\d:]+)/.exec(new Date(ms).toUTCString().replace(/^(\w+), (\d+) (\w+)/, '$1 $3 $2'))!;
  return `${day.padStart(2, '0')}/${month}/${year}:${time} +0000`;
}

const ingest = (hostname: string, lines: Array<Record<string, unknown>>) => ingestLines(server, hostname, lines);
const exported = (query: string, from: number) => exportRecords(server, query, from);

test('access log, error log, logfmt and syslog lines are searched by their fields and exported with them', async () => {
  const from = Date.now() - 60_000;
  const at = clfTime(Date.now() - 5_000);
  const iso = new Date(Date.now() - 4_000).toISOString();
  await ingest('relay', [
    { line: `127.0.0.1 - - [${at}] "GET /ok HTTP/1.1" 200 3 "-" "curl/7.88.1" 0.004`, app: 'nginx' },
    { line: `127.0.0.1 - bob [${at}] "POST /boom HTTP/1.1" 503 197 "-" "curl/7.88.1" 1.250`, app: 'nginx' },
    { line: `10.0.0.7 - - [${at}] "GET /old HTTP/1.0" 500 12`, app: 'apache2' },
    { line: `time=${iso} level=error msg="payment failed" duration_ms=1234 user_id=42`, app: 'billing' },
    { line: `<11>1 ${iso} db-7 postgres 4242 - - could not connect`, app: 'forwarder' },
    { line: 'just some text status=500' },
  ]);
  const failing = await exported('status:>=500', from);
  assert.deepEqual(failing.map((record) => record._line.split('"')[1]).sort(), ['GET /old HTTP/1.0', 'POST /boom HTTP/1.1']);
  const boom = failing.find((record) => record._status === 503)!;
  assert.equal(boom._logtype, 'nginx');
  assert.equal(boom._method, 'POST');
  assert.equal(boom._path, '/boom');
  assert.equal(boom.remote_user, 'bob');
  assert.equal(boom.response_time, 1.25);
  assert.equal(failing.find((record) => record._status === 500)!._logtype, 'apache', 'the app names Apache');

  assert.equal((await exported('method:GET', from)).length, 2);
  assert.equal((await exported('response_time:>1', from)).length, 1);

  const [billing] = await exported('duration_ms:>1000', from);
  assert.equal(billing._logtype, 'logfmt');
  assert.equal(billing.level, 'ERROR');
  assert.equal(billing.msg, 'payment failed');
  assert.equal(billing.user_id, 42);
  assert.equal(billing.timestamp, iso, 'the line’s own time, as it names its zone');

  const [syslog] = await exported('host:db-7', from);
  assert.equal(syslog._logtype, 'syslog');
  assert.equal(syslog._app, 'postgres');
  assert.equal(syslog.level, 'ERROR');
  assert.equal(syslog.pid, 4242);
  assert.equal(syslog.facility, 'user');
  assert.equal(syslog.host, undefined, 'never a field named host');

  const [text] = await exported('"just some text"', from);
  assert.equal(text._logtype, 'text');
  assert.equal(text._status, undefined);
});

test("a line's own time is used when recent, not when it is old (a sample or copied file), and never over a sent timestamp", async () => {
  const from = Date.now() - 60_000;
  const recent = Date.now() - 30_000;
  await ingest('timed', [
    { line: `127.0.0.1 - - [${clfTime(recent)}] "GET /recent HTTP/1.1" 200 1` },
    { line: '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326' },
    { line: `127.0.0.1 - - [${clfTime(recent)}] "GET /sent HTTP/1.1" 200 1`, timestamp: recent - 5_000 },
  ]);
  const records = await exported('host:timed', from);
  const at = (path: string) => records.find((record) => record._path === path)?._ts;
  assert.equal(at('/recent'), Math.floor(recent / 1000) * 1000);
  assert.ok(at('/apache_pb.gif')! >= from, 'stored at its receive time, so found with the recent lines');
  assert.equal(at('/sent'), recent - 5_000);
});

test('a parsed field keeps the type it was first seen with, as meta does', async () => {
  const from = Date.now() - 60_000;
  await ingest('typed', [{ line: 'level=info msg=first code=ABC' }]);
  await ingest('typed', [{ line: 'level=info msg=second code=404 count=3' }]);
  const records = await exported('host:typed', from);
  const second = records.find((record) => record.msg === 'second')!;
  assert.equal(second.code, '404', 'code was text first, so stays text');
  assert.equal(second.count, 3);
  assert.equal((await exported('code:>=400', from)).length, 0);
  assert.equal((await exported('code:404', from)).length, 1);
});

test("a syslog line carrying Mezmo's element is stored, searched and exported without the ingestion key, over HTTP and the syslog listener", async () => {
  const from = Date.now() - 60_000;
  const key = server.org.ingestionKey;
  const iso = new Date(Date.now() - 3_000).toISOString();
  await ingest('relay', [
    { line: `<11>1 ${iso} keyhost-1 shop 7 - [logdna@48950 key="${key}" tags="web"] payment leaked-key-check-one` },
    { line: `<14>0 ${iso} keyhost-2 shop - - [x@1 y="z"][logdna@48950 key="${key}"] leaked-key-check-two` },
    { line: `relayed text [logdna@48950 key="${key}"] leaked-key-check-three` },
  ]);
  // Over the syslog listener, a message whose own text relays another sender's element.
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: server.running.syslogPorts.tcp! }, () =>
      socket.end(`<13>1 - keyhost-3 app - - [logdna@48950 key="${key}"] <13>1 - inner app - - [logdna@48950 key="${key}"] leaked-key-check-four\n`),
    );
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
  const stored = await eventually(async () => {
    const lines = await exported('leaked-key-check', from);
    return lines.length === 4 ? lines : undefined;
  }, 10_000, 'the four lines stored');
  assert.doesNotMatch(JSON.stringify(stored), new RegExp(key), 'the key nowhere in an exported line, its fields or meta');
  assert.deepEqual((await exported(`"${key}"`, from)).length, 0, 'no line is found by the key');
  const lines = stored.map((record) => record._line).sort((a, b) => a.slice(a.lastIndexOf('-')).localeCompare(b.slice(b.lastIndexOf('-'))));
  assert.deepEqual(lines, [
    '<13>1 - inner app - - - leaked-key-check-four',
    `<11>1 ${iso} keyhost-1 shop 7 - - payment leaked-key-check-one`,
    'relayed text - leaked-key-check-three',
    `<14>0 ${iso} keyhost-2 shop - - [x@1 y="z"] leaked-key-check-two`,
  ]);
  assert.equal(stored.find((record) => record._line.endsWith('-one'))?._host, 'keyhost-1', 'the header still read');
});

test("the formats Mezmo parses are searched by their fields, numbers as numbers, each with its _logtype", async () => {
  const from = Date.now() - 60_000;
  const pgTime = new Date(Date.now() - 5_000).toISOString().replace('T', ' ').replace('Z', ' UTC');
  const lines: Array<Record<string, unknown>> = [
    { line: `${pgTime} [4242] shop@orders LOG:  duration: 12.3 ms  statement: SELECT * FROM orders`, app: 'postgresql' },
    { line: "2026-11-28 16:54:27 3 [Warning] Aborted connection 3 to db: 'unconnected' user: 'unauthenticated' host: '127.0.0.1'", app: 'mysql' },
    { line: '2256:M 28 Nov 2026 16:53:57.790 * Ready to accept connections', app: 'redis' },
    { line: '127.0.0.1:5000 [28/Nov/2026:10:00:00.001] web be/<NOSRV> -1/-1/-1/-1/0 503 217 - - SC-- 1/1/0/0/0 0/0 "GET /down HTTP/1.1"', app: 'haproxy' },
    { line: sample.HAPROXY_TCP, app: 'haproxy' },
    { line: sample.HEROKU_ROUTER_ERROR, app: 'router' },
    ...sample.RAILS.map((line) => ({ line, app: 'rails' })),
    { line: sample.RAILS_TAGGED, app: 'rails' },
    { line: sample.TOMCAT_TRACE, app: 'tomcat' },
    { line: sample.GO_PANIC, app: 'shop-go' },
    { line: sample.CRON },
    { line: JSON.stringify({ log: '9:S 28 Nov 2026 10:00:00.000 # Connection with master lost.\n', stream: 'stderr', time: new Date(Date.now() - 2_000).toISOString() }), app: 'docker' },
    { line: JSON.stringify({ log: 'plain words from a container\n', stream: 'stdout', time: new Date(Date.now() - 2_000).toISOString() }), app: 'docker' },
    { line: sample.ALB_502, app: 'alb' },
    { line: sample.CLOUDFRONT_ERROR, app: 'cloudfront' },
  ];
  await ingest('programs', lines);
  const all = await exported('host:programs', from);
  assert.equal(all.length, lines.length - 1, 'all but the cron line, whose header names its own host');

  const failing = await exported('host:programs status:>=500', from);
  const byType = (records: Array<Record<string, any>>) => records.map((record) => record._logtype).sort();
  assert.deepEqual(byType(failing), ['alb', 'cloudfront', 'haproxy', 'heroku', 'rails']);
  assert.deepEqual(byType(await exported('host:programs duration_ms:>10', from)), ['postgresql', 'rails']);
  const [slow] = await exported('host:programs duration_ms:>12.2 duration_ms:<12.4', from);
  assert.equal(slow._logtype, 'postgresql');
  assert.equal(slow.database, 'orders');
  assert.equal(slow.statement, 'SELECT * FROM orders');
  assert.equal(slow.level, 'INFO');

  const [mysql] = await exported('host:programs thread_id:3', from);
  assert.equal(mysql._logtype, 'mysql');
  assert.equal(mysql.level, 'WARN');
  const [redis] = await exported('host:programs role:master', from);
  assert.equal(redis._logtype, 'redis');
  assert.equal(redis.pid, 2256);
  const [tcp] = await exported('host:programs time_total_ms:>5000', from);
  assert.equal(tcp._logtype, 'haproxy');
  assert.equal(tcp.retries, 3);
  const [heroku] = await exported('host:programs service_ms:>=30000', from);
  assert.equal(heroku._logtype, 'heroku');
  assert.equal(heroku.code, 'H12');
  assert.equal(heroku.level, 'ERROR');
  assert.equal((await exported('host:programs controller:ArticlesController', from))[0]?._logtype, 'rails');
  assert.equal((await exported('host:programs allocations:>1000', from)).length, 1);
  const [java] = await exported('host:programs root_cause:"java.sql.SQLException"', from);
  assert.equal(java._logtype, 'java');
  assert.equal(java.exception, 'java.lang.IllegalStateException');
  assert.match(java._line, /\n\tat com\.example\.shop\.OrderService\.total/, 'the trace kept in its line');
  const [go] = await exported('host:programs goroutine:1', from);
  assert.equal(go._logtype, 'go');
  assert.equal(go.function, 'main.main');
  const [cron] = await exported('app:CRON', from);
  assert.equal(cron._logtype, 'cron');
  assert.equal(cron._host, 'web-1');
  assert.equal(cron.command, 'cd / && run-parts --report /etc/cron.hourly');
  const docker = await exported('host:programs (stream:stderr OR stream:stdout)', from);
  assert.deepEqual(docker.map((record) => record._line).sort(), ['9:S 28 Nov 2026 10:00:00.000 # Connection with master lost.', 'plain words from a container'], 'unwrapped');
  assert.equal(docker.find((record) => record.stream === 'stderr')?._logtype, 'redis', 'the inner line parsed');
  assert.equal(docker.find((record) => record.stream === 'stdout')?._logtype, 'docker');
  const [alb] = await exported('host:programs elb_status_code:502', from);
  assert.equal(alb._logtype, 'alb');
  assert.equal(alb.error_reason, 'TargetResponseError');
  const [cloudfront] = await exported('host:programs sc_bytes:>800', from);
  assert.equal(cloudfront._logtype, 'cloudfront');
  assert.equal(cloudfront.x_edge_detailed_result_type, 'OriginDnsError');
});
