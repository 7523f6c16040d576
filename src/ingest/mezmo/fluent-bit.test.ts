import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../../testing/harness.js';

// The README's Fluent Bit configuration, replayed as Fluent Bit's `logdna` output sends it. No
// Fluent Bit binary installs here, so this test reads the [OUTPUT] section from the README and
// builds the requests out_logdna builds from it (plugins/out_logdna/logdna.c in Fluent Bit):
// POST <endpoint>?hostname=<h>&mac=&ip=&now=<seconds>&tags=<t>, unencoded; Basic auth with the
// key as user; Content-Type application/json; charset=UTF-8; a body {"lines":[...]} where each
// element has level/meta/file/app promoted from the record, `timestamp` in whole seconds, and
// `line`, the whole record as JSON with every non-ASCII character escaped as \uXXXX.

const README = fileURLToPath(new URL('../../../../README.md', import.meta.url));

/** The key/value settings of the README's Fluent Bit [OUTPUT] section. */
function readmeOutput(): Map<string, string> {
  const text = fs.readFileSync(README, 'utf8');
  const block = /### Fluent Bit[\s\S]*?```ini\n([\s\S]*?)```/.exec(text);
  assert.ok(block, 'the README has a Fluent Bit configuration');
  const output = /\[OUTPUT\]\n([\s\S]*?)(?:\n\[|$)/.exec(block[1])![1];
  const settings = new Map<string, string>();
  for (const line of output.split('\n')) {
    const match = /^\s+(\w+)\s+(.+?)\s*$/.exec(line);
    if (match && !line.trim().startsWith('#')) settings.set(match[1].toLowerCase(), match[2]);
  }
  return settings;
}

/** JSON with every non-ASCII character escaped, as Fluent Bit writes it by default. */
const fluentJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** One out_logdna record: promoted keys beside the line, the line being the whole record. */
function outLogdnaLine(record: Record<string, unknown>, timeSeconds: number, app: string) {
  const line: Record<string, unknown> = {};
  for (const key of ['level', 'meta', 'file', 'app']) if (record[key] !== undefined) line[key] = record[key];
  if (record.severity !== undefined && line.level === undefined) line.level = record.severity;
  line.app ??= app;
  line.timestamp = timeSeconds;
  line.line = fluentJson(record);
  return line;
}

function send(path: string, key: string, body: string): Promise<{ status: number; text: string }> {
  const target = new URL(server.url);
  return new Promise((resolve, reject) => {
    // http.request would refuse an unencoded space in the path; Fluent Bit sends it as it is.
    const outgoing = http.request({
      host: target.hostname,
      port: target.port,
      method: 'POST',
      path: path.replaceAll(' ', '%20'),
      headers: { authorization: basic(key), 'content-type': 'application/json; charset=UTF-8', 'user-agent': 'Fluent-Bit' },
    });
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test("the README's Fluent Bit configuration delivers tail records with every field right", async () => {
  const output = readmeOutput();
  assert.equal(output.get('name'), 'logdna');
  assert.equal(output.get('logdna_endpoint'), '/logs/ingest');
  assert.equal(output.get('tls'), 'off');
  assert.ok(Number(output.get('retry_limit')) > 1, 'Retry_Limit is raised above its default of 1');
  const hostname = output.get('hostname')!;
  assert.doesNotMatch(hostname, /\s/, 'the hostname has no space');
  const app = output.get('app')!;
  const tags = output.get('tags')!;

  const now = Math.floor(Date.now() / 1000);
  const records = [
    { log: 'GET /orders 200 fluentreadme 12ms' },
    { log: 'caf\u00e9 漢字 fluentreadme', level: 'warn', meta: { order: 7 } },
    { message: 'payment failed fluentreadme', severity: 'error', file: '/var/log/myapp/pay.log' },
    // Lines of an nginx access log and of a logfmt file, as tail with no parser makes them.
    { log: '10.9.9.9 - - [28/Nov/2026:23:11:39 +0000] "GET /fluentreadme HTTP/1.1" 503 12 "-" "curl/8" 0.500\n' },
    { log: 'time=2026-11-28T23:11:39Z level=error msg="card declined" order=7 fluentreadme=1' },
  ];
  const body = fluentJson({ lines: records.map((record) => outLogdnaLine(record, now - 5, app)) });
  const path = `${output.get('logdna_endpoint')}?hostname=${hostname}&mac=&ip=&now=${now}&tags=${tags}`;
  const reply = await send(path, server.org.ingestionKey, body);
  assert.equal(reply.status, 200, reply.text);

  const exported = jsonLines(
    (await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=fluentreadme`, { headers: { servicekey: server.org.serviceKey } })).text,
  );
  assert.equal(exported.length, 5);
  for (const line of exported) {
    assert.equal(line._host, hostname);
    assert.equal(line._app, app);
    assert.equal(line._ts, (now - 5) * 1000, 'the time is as sent');
    assert.deepEqual([...line.tags].sort(), tags.split(',').sort());
  }
  const escaped = exported.find((line) => line._line.includes('\\u00e9'))!;
  assert.equal(escaped._line, fluentJson(records[1]), 'the line is stored as Fluent Bit sent it');
  assert.equal(escaped.level, 'WARN');
  const payment = exported.find((line) => line._line.includes('payment'))!;
  assert.equal(payment.level, 'ERROR');
  assert.equal(payment._file, '/var/log/myapp/pay.log');
  // A record that is only a file's line is stored as sent, with the fields of the line inside.
  const access = exported.find((line) => line._line.includes('10.9.9.9'))!;
  assert.equal(access._line, fluentJson(records[3]));
  assert.deepEqual([access._logtype, access._status, access._path, access.response_time, access.log], ['nginx', 503, '/fluentreadme', 0.5, records[3].log]);
  const logfmt = exported.find((line) => line._line.includes('card declined'))!;
  assert.equal(logfmt._line, fluentJson(records[4]));
  assert.deepEqual([logfmt._logtype, logfmt.msg, logfmt.order, logfmt.level], ['logfmt', 'card declined', 7, 'ERROR']);
  const plain = exported.find((line) => line._line.includes('GET /orders'))!;
  assert.deepEqual([plain._logtype, plain.log], ['json', records[0].log], 'a line in no format inside stays a JSON line');
  const found = jsonLines(
    (await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${encodeURIComponent('"café 漢字"')}`, { headers: { servicekey: server.org.serviceKey } })).text,
  );
  assert.deepEqual(found.map((line) => line._line), [escaped._line], 'escaped text is found as the text it stands for');
});

test('a hostname with a space, which Fluent Bit does not encode, gets the documented 400', async () => {
  const now = Math.floor(Date.now() / 1000);
  const body = fluentJson({ lines: [outLogdnaLine({ log: 'x' }, now, 'myapp')] });
  const target = new URL(server.url);
  const net = await import('node:net');
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname);
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.end(
      `POST /logs/ingest?hostname=my host&mac=&ip=&now=${now}&tags= HTTP/1.1\r\nHost: ${target.host}\r\n` +
        `Authorization: ${basic(server.org.ingestionKey)}\r\nContent-Type: application/json; charset=UTF-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { error: 'Bad or missing parameters.', code: 'BadRequest', status: 'error' });
});
