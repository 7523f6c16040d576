import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { MAX_LINES_PER_SECOND, SESSION_ENDED } from './tail-routes.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

interface Tail {
  socket: WebSocket;
  lines: Array<Record<string, any>>;
  metas: Array<Record<string, any>>;
}

/** Opens a tail the way the Mezmo CLI does: Authorization: Token and the json subprotocol. */
function openTail(params: string, headers: Record<string, string> = { authorization: `Token ${server.org.serviceKey}` }): Promise<Tail> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail?${params}`, 'json', { headers });
    const tail: Tail = { socket, lines: [], metas: [] };
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.e === 'meta') tail.metas.push(message.p);
      else tail.lines.push(...(Array.isArray(message.p) ? message.p : [message.p]));
    });
    socket.on('open', () => eventually(() => (tail.metas.length ? tail : undefined)).then(resolve, reject));
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => reject(Object.assign(new Error('refused'), { status: response.statusCode, body })));
    });
    socket.on('error', reject);
  });
}

async function ingest(key: string, lines: Array<Record<string, unknown>>, host = 'web-1') {
  const reply = await request(`${server.url}/logs/ingest?hostname=${host}`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200);
}

test('a tail receives matching lines as they are stored, filtered by q, hosts, apps and levels', async () => {
  const all = await openTail('');
  const filtered = await openTail('q=timeout&apps=api&levels=error&hosts=web-1');
  assert.equal(all.socket.protocol, 'json');
  const started = Date.now();
  await ingest(server.org.ingestionKey, [
    { line: 'request timeout', app: 'api', level: 'error' },
    { line: 'request timeout', app: 'web', level: 'error' },
    { line: 'all good', app: 'api', level: 'error' },
  ]);
  await eventually(() => (all.lines.length === 3 ? true : undefined), 2000, 'three lines within 2 s');
  assert.ok(Date.now() - started < 2000);
  await eventually(() => (filtered.lines.length === 1 ? true : undefined), 2000);
  assert.equal(filtered.lines[0]._line, 'request timeout');
  assert.equal(filtered.lines[0]._app, 'api');
  assert.ok(filtered.lines[0]._id && filtered.lines[0]._ts && filtered.lines[0].timestamp, 'lines are export records');
  all.socket.close();
  filtered.socket.close();
});

test("a tail never sees another organisation's lines", async () => {
  const other = await server.createOrg('other');
  const mine = await openTail('');
  const theirs = await openTail('', { servicekey: other.serviceKey });
  await ingest(other.ingestionKey, [{ line: 'their secret' }]);
  await ingest(server.org.ingestionKey, [{ line: 'my line' }]);
  await eventually(() => (mine.lines.length && theirs.lines.length ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(mine.lines.map((line) => line._line), ['my line']);
  assert.deepEqual(theirs.lines.map((line) => line._line), ['their secret']);
  mine.socket.close();
  theirs.socket.close();
});

test('bad keys and bad queries are refused before the upgrade', async () => {
  await assert.rejects(openTail('', {}), (error: { status: number }) => error.status === 401);
  await assert.rejects(openTail('', { authorization: 'Token nope' }), (error: { status: number }) => error.status === 401);
  await assert.rejects(openTail('q=(broken'), (error: { status: number }) => error.status === 400);
  await assert.rejects(openTail(`levels=${'x'.repeat(81)}`), (error: { status: number }) => error.status === 400, 'a filter value no line can have');
});

test('the viewer session works, but not from another site', async () => {
  const signIn = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: server.org.serviceKey }) });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  const host = new URL(server.url).host;
  const tail = await openTail('', { cookie, origin: `http://${host}` });
  tail.socket.close();
  for (const origin of ['http://evil.example', `http://${host}.evil.example`, 'null', '::::', 'file:///etc']) {
    await assert.rejects(openTail('', { cookie, origin }), (error: { status: number; body: string }) => {
      assert.equal(error.status, 403, origin);
      assert.match(JSON.parse(error.body).error, /Origin may not use the viewer session/);
      return true;
    });
  }
});

test('a tail opened with a key works from any Origin, even beside a session cookie', async () => {
  const signIn = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: server.org.serviceKey }) });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  for (const headers of <Array<Record<string, string>>>[
    { authorization: `Token ${server.org.serviceKey}`, origin: 'null' },
    { servicekey: server.org.serviceKey, origin: 'http://evil.example', cookie },
  ]) {
    const tail = await openTail('', headers);
    tail.socket.close();
  }
  const byQuery = await openTail(`servicekey=${server.org.serviceKey}`, { origin: '::::' });
  byQuery.socket.close();
});

test('a tail opened with the viewer session closes when the session signs out', async () => {
  const signIn = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey: server.org.serviceKey }) });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
  const tail = await openTail('', { cookie });
  const closed = new Promise<number>((resolve) => tail.socket.once('close', (code) => resolve(code)));
  await request(`${server.url}/api/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': signIn.json.csrfToken } });
  assert.equal(await closed, SESSION_ENDED);
});

test('above the line rate a tail is sampled, and told so', async () => {
  const tail = await openTail('q=flood');
  const lines = Array.from({ length: 3000 }, (_, i) => ({ line: `flood ${i}` }));
  await ingest(server.org.ingestionKey, lines);
  await eventually(() => (tail.lines.length >= MAX_LINES_PER_SECOND ? true : undefined));
  // Reported within a couple of seconds with no further line: the report does not wait for one.
  const note = await eventually(() => tail.metas.find((meta) => meta.sampled), 3000, 'the sampling report');
  assert.ok(tail.lines.length <= MAX_LINES_PER_SECOND + 1, `${tail.lines.length} lines`);
  assert.equal(note.dropped, 3000 - MAX_LINES_PER_SECOND);
  tail.socket.close();
});
