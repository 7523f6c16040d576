import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { type TestServer, basic, request, startTestServer } from '../testing/harness.js';

// Errors produced before any route runs (Node's HTTP parser, the router, the body parsers) get a
// body from the catalogue, readable by the client before the connection closes. Raw sockets send
// what fetch would refuse to send.

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

interface RawReply {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: any;
  /** How the connection ended for the client: a reset would lose the answer on many clients. */
  reset: boolean;
}

/** Writes raw bytes (then an optional upload, in chunks), and reads the answer until the server closes. */
function raw(head: string, upload: Buffer = Buffer.alloc(0)): Promise<RawReply> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    let reset = false;
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
      else reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!match) return reject(new Error(`no HTTP answer (reset: ${reset}): ${JSON.stringify(text.slice(0, 200))}`));
      const headEnd = text.indexOf('\r\n\r\n');
      const bodyText = text.slice(headEnd + 4);
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, headEnd).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = bodyText;
      }
      resolve({ status: Number(match[1]), headers, body, reset });
    });
    socket.write(head);
    // The sender goes on uploading after the server has answered, as a real client would.
    let offset = 0;
    const more = () => {
      while (offset < upload.length && !socket.destroyed) {
        const piece = upload.subarray(offset, offset + 64 * 1024);
        offset += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', more);
      }
      if (!socket.destroyed) socket.end();
    };
    more();
  });
}

/** The body is the catalogue's envelope with this code, not fastify's generic one. */
const catalogued = (reply: { body?: any; json?: any }, code: string) => {
  const body = reply.body ?? reply.json;
  assert.equal(typeof body?.error, 'string', JSON.stringify(body));
  assert.equal(body.code, code, JSON.stringify(body));
  assert.equal(body.status, 'error');
  assert.equal(body.statusCode, undefined, "not fastify's own body");
};

test('an unencoded space in the query (Fluent Bit: hostname=my host) gets the documented 400, readable mid-upload', async () => {
  const body = Buffer.from(JSON.stringify({ lines: Array.from({ length: 20_000 }, (_, i) => ({ line: `line ${i}`, timestamp: 1 })) }));
  const reply = await raw(
    `POST /logs/ingest?hostname=my host&now=${Math.floor(Date.now() / 1000)} HTTP/1.1\r\nHost: x\r\n` +
      `Authorization: ${basic(server.org.ingestionKey)}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  assert.equal(reply.status, 400);
  assert.deepEqual(reply.body, { error: 'Bad or missing parameters.', code: 'BadRequest', status: 'error' });
  for (const header of ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy']) {
    assert.ok(reply.headers[header], `the answer carries ${header}, as every other answer does`);
  }
  assert.equal(reply.reset, false, 'the client read the answer before the connection closed, without a reset');
});

test('malformed headers, lengths and chunks get the catalogued 400', async () => {
  const cases = [
    'POST /logs/ingest?hostname=h HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n',
    'POST /logs/ingest?hostname=h HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'POST /logs/ingest?hostname=h HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
    'POST /logs/ingest?hostname=h HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
    'GARBAGE\r\n\r\n',
  ];
  for (const head of cases) {
    const reply = await raw(head);
    assert.equal(reply.status, 400, head);
    catalogued(reply, 'BadRequest');
  }
});

test('headers over the limit get a catalogued 431', async () => {
  const reply = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(200 * 1024)}\r\n\r\n`);
  assert.equal(reply.status, 431);
  catalogued(reply, 'HeadersTooLarge');
});

test('unknown paths, wrong methods, bad URLs, content types and unreadable bodies are catalogued', async () => {
  const key = { servicekey: server.org.serviceKey };
  const notFound = await request(`${server.url}/v1/no/such/path`);
  assert.equal(notFound.status, 404);
  catalogued(notFound, 'NotFound');
  const wrongMethod = await request(`${server.url}/logs/ingest?hostname=h`, { method: 'PUT', headers: { apikey: server.org.ingestionKey } });
  assert.equal(wrongMethod.status, 404);
  catalogued(wrongMethod, 'NotFound');
  const badUrl = await raw('GET /v1/config/view/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(badUrl.status, 400);
  catalogued(badUrl, 'BadRequest');
  const contentType = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { ...key, 'content-type': 'application/xml' }, body: '<view/>' });
  assert.equal(contentType.status, 415);
  catalogued(contentType, 'UnsupportedMediaType');
  const brokenJson = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"name":' });
  assert.equal(brokenJson.status, 400);
  catalogued(brokenJson, 'BadRequest');
  const brokenGzip = await request(`${server.url}/logs/ingest?hostname=h`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: zlib.gzipSync('{"lines":[]}').subarray(0, 12),
  });
  assert.equal(brokenGzip.status, 400);
  assert.deepEqual(brokenGzip.json, { error: 'Bad or missing parameters.', code: 'BadRequest', status: 'error' });
});
