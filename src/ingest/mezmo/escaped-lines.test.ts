/**
 * A JSON line whose sender escaped its non-ASCII text (Fluent Bit's logdna output does by
 * default) is found by that text in export and live tail, and is kept exactly as received.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type TestServer, basic, eventually, jsonLines, request, startTestServer } from '../../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** The line as it stands in Fluent Bit's request body: a JSON string whose text holds \u escapes. */
const ESCAPED_IN_BODY = String.raw`"{\"log\":\"caf\\u00e9 \\u6f22\\u5b57\"}"`;
const ESCAPED = String.raw`{"log":"caf\u00e9 \u6f22\u5b57"}`;
const UNESCAPED = '{"log":"café 漢字"}';
const FOUND = ['café', 'caf', '==café', '"漢字"', '漢字', '"café 漢字"', 'log:café', 'u00e9'];
const NOT_FOUND = ['CAFÉ', '"café  漢字"', '漢字x', '-café'];

/** POSTs one line the way Fluent Bit does: Basic auth with the key as user, seconds in `now`. */
async function ingestAsFluentBit(lineInBody: string, app: string) {
  const body = `{"lines":[{"line":${lineInBody},"timestamp":${Date.now()},"app":"${app}"}]}`;
  const reply = await request(`${server.url}/logs/ingest?hostname=fb-1&mac=&ip=&now=${Math.floor(Date.now() / 1000)}`, {
    method: 'POST',
    headers: { authorization: basic(server.org.ingestionKey), 'content-type': 'application/json', 'user-agent': 'Fluent-Bit' },
    body,
  });
  assert.equal(reply.status, 200, reply.text);
}

function exportV1(app: string, query: string) {
  const params = new URLSearchParams({ from: String(Date.now() - 60_000), to: String(Date.now() + 1000), apps: app, query });
  return request(`${server.url}/v1/export?${params}`, { headers: { servicekey: server.org.serviceKey } });
}

async function exported(app: string, query: string): Promise<string[]> {
  const reply = await exportV1(app, query);
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text).map((record) => record._line);
}

test('an escaped JSON line is found in export by the text its escapes stand for, as the same line sent unescaped is', async () => {
  assert.equal(JSON.parse(ESCAPED_IN_BODY), ESCAPED);
  await ingestAsFluentBit(ESCAPED_IN_BODY, 'escaped');
  await ingestAsFluentBit(JSON.stringify(UNESCAPED), 'unescaped');
  for (const query of FOUND) {
    assert.deepEqual(await exported('escaped', query), [ESCAPED], query);
    // The escapes' own text is found only where it was sent.
    assert.deepEqual(await exported('unescaped', query), query === 'u00e9' ? [] : [UNESCAPED], query);
  }
  for (const query of NOT_FOUND) {
    assert.deepEqual(await exported('escaped', query), [], query);
    assert.deepEqual(await exported('unescaped', query), [], query);
  }
});

test('export returns the escaped line byte for byte', async () => {
  await ingestAsFluentBit(ESCAPED_IN_BODY, 'bytes');
  const reply = await exportV1('bytes', '');
  assert.deepEqual(jsonLines(reply.text).map((record) => record._line), [ESCAPED]);
  assert.ok(reply.text.includes(`"_line":${ESCAPED_IN_BODY}`), reply.text);
});

interface Tail {
  socket: WebSocket;
  lines: string[];
}

/** Opens a live tail; resolves once the server has sent its greeting. */
function openTail(q: string): Promise<Tail> {
  return new Promise((resolve, reject) => {
    const params = new URLSearchParams({ q, apps: 'tailed' });
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail?${params}`, 'json', { headers: { authorization: `Token ${server.org.serviceKey}` } });
    const tail: Tail = { socket, lines: [] };
    let greeted = false;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.e === 'meta') greeted = true;
      else tail.lines.push(...(Array.isArray(message.p) ? message.p : [message.p]).map((record: { _line: string }) => record._line));
    });
    socket.on('open', () => eventually(() => (greeted ? tail : undefined)).then(resolve, reject));
    socket.on('error', reject);
  });
}

test('a live tail matches an escaped JSON line by the text its escapes stand for', async () => {
  // Every tail also takes a marker line sent after the escaped one: once a tail has the marker,
  // it has decided on the escaped line (a tail receives lines in the order they were stored).
  const tails = await Promise.all([...FOUND, ...NOT_FOUND].map(async (query) => ({ query, tail: await openTail(`(${query}) OR tailmarker`) })));
  await ingestAsFluentBit(ESCAPED_IN_BODY, 'tailed');
  await ingestAsFluentBit('"tailmarker"', 'tailed');
  for (const { query, tail } of tails) {
    await eventually(() => (tail.lines.includes('tailmarker') ? true : undefined), 5000, `the marker on q=${query}`);
    assert.deepEqual(tail.lines, NOT_FOUND.includes(query) ? ['tailmarker'] : [ESCAPED, 'tailmarker'], `q=${query}`);
    tail.socket.close();
  }
});
