import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import zlib from 'node:zlib';
import WebSocket from 'ws';
import { openChdbExecutor } from '../store/chdb-executor.js';
import { basic, request } from '../testing/harness.js';
import { BIN, exited, serveProcess } from '../testing/process.js';
import { createHttpServer } from './server.js';

const hex = (bytes = 8) => randomBytes(bytes).toString('hex');
const scratch: string[] = [];
after(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-logs-'));
  scratch.push(dir);
  return dir;
};

/** Every JSON log line in a process's output; anything else there is the start banner. */
function logLines(output: string): Array<Record<string, any>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

test('at trace level, the logs of every kind of request carry a request id and never a key, a session or a line', async () => {
  const dataDir = tempDir();
  const started = await serveProcess(dataDir, { LOGSTEAD_LOG_LEVEL: 'trace' });
  // An organisation of its own: the first start prints the default one's keys, by design.
  const created = spawnSync(process.execPath, [BIN, 'org', 'create', 'logged'], { env: { ...process.env, LOGSTEAD_DATA_DIR: dataDir }, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const org = JSON.parse(created.stdout);
  const marker = `linemarker${hex()}`;
  const wrongKey = hex(16);
  const url = started.url;
  const ingest = (query: string, headers: Record<string, string>, body: string | Buffer = JSON.stringify({ lines: [{ line: `${marker} text`, app: 'a', meta: { note: marker } }] })) =>
    request(`${url}/logs/ingest?hostname=h${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const statuses: Array<[string, number]> = [];
  const expect = async (what: string, reply: Promise<{ status: number }>, status: number) => {
    const got = (await reply).status;
    statuses.push([what, got]);
    assert.equal(got, status, what);
  };

  // Ingestion keys in every place, wrong keys, bad bodies.
  await expect('apikey header', ingest('', { apikey: org.ingestionKey }), 200);
  await expect('apikey parameter', ingest(`&apikey=${org.ingestionKey}`, {}), 200);
  await expect('Basic', ingest('', { authorization: basic(org.ingestionKey) }), 200);
  await expect('Token', ingest('', { authorization: `Token ${org.ingestionKey}` }), 200);
  await expect('a wrong key', ingest(`&apikey=${wrongKey}`, {}), 403);
  await expect('two keys', ingest(`&apikey=${wrongKey}`, { apikey: org.ingestionKey }), 401);
  await expect('broken JSON', ingest('', { apikey: org.ingestionKey }, `{"lines":[{"line":"${marker}`), 400);
  await expect('broken gzip', ingest('', { apikey: org.ingestionKey, 'content-encoding': 'gzip' }, zlib.gzipSync(marker).subarray(0, 12)), 400);
  await expect('a meta type conflict', ingest('', { apikey: org.ingestionKey }, JSON.stringify({ lines: [{ line: marker, meta: { note: 5 } }] })), 200);

  // Service keys in every place, a search for the line, the export that returns it.
  const window = `from=0&to=${Date.now() + 60_000}`;
  await expect('servicekey parameter', request(`${url}/v1/export?${window}&servicekey=${org.serviceKey}`), 200);
  await expect('servicekey header', request(`${url}/v1/export?${window}&query=${marker}`, { headers: { servicekey: org.serviceKey } }), 200);
  await expect('service Basic', request(`${url}/v2/export?${window}`, { headers: { authorization: basic(org.serviceKey) } }), 200);
  await expect('a wrong service key', request(`${url}/v1/export?${window}&servicekey=${wrongKey}`), 401);
  await expect('an unknown route with a key', request(`${url}/v1/nothing?servicekey=${org.serviceKey}`), 404);
  await expect('a malformed URL with a key', request(`${url}/v1/config/view/%E0%A4%A?servicekey=${org.serviceKey}`, { headers: { servicekey: org.serviceKey } }), 400);
  await expect('a bad parameter', request(`${url}/v1/export?from=${marker}&to=1&servicekey=${org.serviceKey}`), 400);

  // A viewer session: its cookie and CSRF token, a write, a bad body.
  const signIn = await request(`${url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: org.serviceKey }) });
  assert.equal(signIn.status, 200, signIn.text);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
  const sessionToken = cookie.split('=')[1];
  const csrf = signIn.json.csrfToken as string;
  const asViewer = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
  await expect('a session read', request(`${url}/api/session`, { headers: { cookie } }), 200);
  await expect('a session write', request(`${url}/v1/config/view`, { method: 'POST', headers: asViewer, body: JSON.stringify({ name: marker, query: marker }) }), 200);
  await expect('a bad body', request(`${url}/v1/config/view`, { method: 'POST', headers: asViewer, body: `{"name":"${marker}` }), 400);
  await expect('a wrong sign-in', request(`${url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: wrongKey }) }), 401);

  // WebSockets: a tail with its key in the URL, and an upgrade on a route that is not one.
  for (const wsPath of [`/ws/tail?servicekey=${org.serviceKey}`, `/v1/export?servicekey=${org.serviceKey}`]) {
    const socket = new WebSocket(`${url.replace('http', 'ws')}${wsPath}`, 'json');
    await new Promise((resolve) => {
      socket.once('open', () => socket.close());
      socket.once('close', resolve);
      socket.once('error', resolve);
    });
  }

  // Request ids: a proxy's is kept and returned, an unsafe one replaced.
  const own = await request(`${url}/healthz`, { headers: { 'x-request-id': 'proxy-id.123' } });
  assert.equal(own.headers.get('x-request-id'), 'proxy-id.123');
  const unsafe = await request(`${url}/healthz`, { headers: { 'x-request-id': `a b ${'x'.repeat(200)}` } });
  assert.match(unsafe.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const refused = await request(`${url}/v1/export`, { headers: { servicekey: wrongKey } });
  assert.match(refused.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'errors carry it too');

  started.child.kill('SIGTERM');
  assert.deepEqual(await exited(started.child), { code: 0, signal: null });
  const output = started.output();
  const secrets = { 'ingestion key': org.ingestionKey, 'service key': org.serviceKey, 'wrong key': wrongKey, 'session token': sessionToken, 'CSRF token': csrf, "a line's content": marker };
  for (const [what, value] of Object.entries(secrets)) {
    const at = output.indexOf(value);
    assert.equal(at, -1, `the output holds the ${what}: ...${output.slice(Math.max(0, at - 300), at + 100)}`);
  }

  const logs = logLines(output);
  const completed = logs.filter((line) => line.msg === 'request completed');
  assert.ok(completed.length >= statuses.length, `one line per request at debug level: ${completed.length}`);
  for (const line of completed) {
    assert.equal(typeof line.reqId, 'string', JSON.stringify(line));
    assert.ok(line.req.method && line.req.url, JSON.stringify(line));
    assert.equal(line.req.headers, undefined, 'no headers are logged');
  }
  assert.ok(completed.some((line) => line.reqId === 'proxy-id.123' && line.req.url === '/healthz'));
  assert.ok(completed.some((line) => line.res?.statusCode === 403 && line.req.url === '/logs/ingest'), 'a refused request is logged like the rest, by its path');
  assert.ok(logs.some((line) => /closed incoming websocket/.test(line.msg) && line.path === '/v1/export'), 'the websocket plugin logs the path only');
});

test('an error answered 500 is logged with its request id and type, without what its message quoted', async () => {
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const engineDir = tempDir();
  const executor = await openChdbExecutor(path.join(engineDir, 'clickhouse'));
  const marker = `linemarker${hex()}`;
  const key = hex(16);
  const app = createHttpServer('info', capture);
  await executor.exec('CREATE TABLE t (a String, b UInt32) ENGINE = MergeTree ORDER BY a');
  // Errors whose messages quote what they were given: the engine quotes an insert's rows and a
  // parameter's value, V8 the text JSON.parse refused, and a message may quote a URL.
  app.get('/engine-insert', () => executor.insertTabSeparated('t', ['a', 'b'], Buffer.from(`${marker}\tnot a number\n`)));
  app.get('/engine-parameter', () => executor.rows('SELECT {n:UInt64}', { n: marker }));
  app.get('/json', () => JSON.parse(`{"line":"${marker}`));
  app.get('/url', () => {
    throw Object.assign(new Error(`could not fetch /v1/export?servicekey=${key}&q=1`), { body: marker, rawPacket: Buffer.from(key) });
  });
  app.get('/thrown', async (request) => {
    request.log.error(new Error(`a bare error quoting https://x.example/?apikey=${key}`));
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const address = app.server.address() as { port: number };
    for (const route of ['/engine-insert', '/engine-parameter', '/json', '/url', '/thrown']) {
      const reply = await request(`http://127.0.0.1:${address.port}${route}`);
      assert.equal(reply.status, route === '/thrown' ? 200 : 500, reply.text);
      const id = reply.headers.get('x-request-id');
      const logged = lines.map((line) => JSON.parse(line)).filter((line) => line.reqId === id);
      assert.equal(logged.length, 1, `${route}: ${lines.join('\n')}`);
      assert.equal(logged[0].level, 50);
      assert.equal(typeof logged[0].err.type, 'string');
      assert.match(logged[0].err.stack, /\n\s+at /, 'the stack frames are kept');
    }
  } finally {
    await app.close();
    await executor.close();
  }
  const all = lines.join('\n');
  assert.ok(!all.includes(marker), `a log quotes the input: ${all}`);
  assert.ok(!all.includes(key), `a log holds the key: ${all}`);
  assert.match(all, /CANNOT_PARSE_INPUT_ASSERTION_FAILED/, "the engine's error name stays");
  assert.match(all, /servicekey=\[redacted\]&q=1/);
});
