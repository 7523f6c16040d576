import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { type Upload, uploadInPieces } from '../../testing/upload.js';

// What a shipper sees when the upload is slow, the server busy, or a burst larger than the queue:
// the time of a line never moves, and a burst the store can absorb within seconds is absorbed.

let counter = 0;
const marker = () => `arrival${Date.now().toString(36)}x${counter++}end`; // whole words: search words are prefixes

/** POSTs a body as Fluent Bit does (Basic auth, `now` in whole seconds), optionally slowly. */
function post(server: TestServer, query: string, body: Buffer, options: { pieces?: number; pauseMs?: number; key?: string } = {}): Promise<Upload> {
  const headers = { authorization: basic(options.key ?? server.org.ingestionKey), 'content-type': 'application/json; charset=UTF-8' };
  return uploadInPieces(`${server.url}/logs/ingest?${query}`, headers, body, options);
}

/**
 * Just after a whole second, so that `now` in whole seconds is exact and the drift tolerance is all
 * left for the server: sent at a random moment, `now` is up to 999 ms behind by itself, and a slow
 * machine's busy event loop took the rest of a one-second tolerance.
 */
async function secondStart(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
  return Math.floor(Date.now() / 1000);
}

const linesBody = (word: string, count: number, timestamp: number) =>
  Buffer.from(JSON.stringify({ lines: Array.from({ length: count }, (_, i) => ({ line: `${word} ${i} ${'x'.repeat(80)}`, timestamp, app: 'fluent' })) }));

async function storedTimes(server: TestServer, word: string): Promise<number[]> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 86_400_000}&query=${word}&size=10000`, { headers: { servicekey: server.org.serviceKey } });
  return jsonLines(reply.text).map((line) => line._ts);
}

describe('clock drift is measured when the request arrives', () => {
  let server: TestServer;
  // A tolerance of one second makes a late measurement show: today's default is five.
  before(async () => (server = await startTestServer({ LOGSTEAD_DRIFT_TOLERANCE_MS: '1000' })));
  after(() => server.close());

  test('a slow upload with an exact now (whole seconds) keeps every time as sent', async () => {
    const word = marker();
    const sentAt = await secondStart();
    const reply = await post(server, `hostname=fluent-bit&now=${sentAt}`, linesBody(word, 200, sentAt), { pieces: 6, pauseMs: 500 });
    assert.equal(reply.status, 200, reply.body);
    const times = await storedTimes(server, word);
    assert.equal(times.length, 200);
    for (const ts of times) assert.equal(ts, sentAt * 1000, 'an upload taking 3 s is not clock drift');
  });

  test('a server busy parsing other requests does not move a line either', async () => {
    const word = marker();
    const busyBodies = Array.from({ length: 4 }, () => linesBody(marker(), 20_000, Math.floor(Date.now() / 1000)));
    const sentAt = await secondStart();
    const busy = busyBodies.map((body) => post(server, 'hostname=busy', body));
    const reply = await post(server, `hostname=fluent-bit&now=${sentAt}`, linesBody(word, 10, sentAt), { pieces: 2, pauseMs: 200 });
    assert.equal(reply.status, 200, reply.body);
    for (const other of await Promise.all(busy)) assert.equal(other.status, 200);
    for (const ts of await storedTimes(server, word)) assert.equal(ts, sentAt * 1000);
  });

  test('a client clock that is really off is still corrected, from whole-second now', async () => {
    const word = marker();
    const skewSeconds = 600; // ten minutes slow
    const clientNow = Math.floor(Date.now() / 1000) - skewSeconds;
    const reply = await post(server, `hostname=h&now=${clientNow}`, linesBody(word, 1, clientNow - 1), { pieces: 3, pauseMs: 300 });
    assert.equal(reply.status, 200);
    const [ts] = await storedTimes(server, word);
    const truth = (clientNow - 1 + skewSeconds) * 1000;
    assert.ok(Math.abs(ts - truth) <= 1500, `${ts} should be within 1.5 s of ${truth}`);
  });
});

describe('bursts beyond the queue wait for room instead of being bounced', () => {
  let server: TestServer;
  // A queue of 500 lines: a burst of 40 requests of 200 lines is sixteen times what it holds.
  before(async () => (server = await startTestServer({ LOGSTEAD_MAX_QUEUED_LINES: '500', LOGSTEAD_INGEST_WAIT_MS: '60000' })));
  after(() => server.close());

  test('every request of the burst is acknowledged, and every line stored once', async () => {
    const word = marker();
    const now = Math.floor(Date.now() / 1000);
    const replies = await Promise.all(Array.from({ length: 40 }, () => post(server, 'hostname=burst', linesBody(word, 200, now))));
    assert.deepEqual([...new Set(replies.map((reply) => reply.status))], [200]);
    assert.equal((await storedTimes(server, word)).length, 8000);
  });
});

describe('a burst that outlasts the wait is shed readably', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer({ LOGSTEAD_MAX_QUEUED_LINES: '1', LOGSTEAD_INGEST_WAIT_MS: '1' })));
  after(() => server.close());

  test('the shed requests get 503 with Retry-After and the catalogued body, never a reset; the rest are stored', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Staggered, so that later requests arrive while earlier ones' lines wait for the store; each
    // is still uploading its body when it is refused.
    const words = Array.from({ length: 16 }, () => marker());
    const replies = await Promise.all(
      words.map(async (word, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 40));
        return post(server, 'hostname=burst', linesBody(word, 5000, now), { pieces: 8, pauseMs: 25 });
      }),
    );
    assert.equal(replies.filter((reply) => reply.reset).length, 0, 'no client saw a reset connection');
    const shed = replies.filter((reply) => reply.status === 503);
    assert.ok(shed.length > 0, 'with no wait and a one-line queue, the burst is shed in part');
    assert.equal(shed.length + replies.filter((reply) => reply.status === 200).length, replies.length);
    for (const reply of shed) {
      assert.equal(reply.headers['retry-after'], '5');
      assert.deepEqual(JSON.parse(reply.body), { error: 'Ingestion is overloaded; retry the request later.', code: 'ServiceUnavailable', status: 'error' });
    }
    for (const [i, word] of words.entries()) {
      const stored = (await storedTimes(server, word)).length;
      assert.equal(stored, replies[i].status === 200 ? 5000 : 0, 'what was acknowledged is stored, and only that');
    }
  });
});
