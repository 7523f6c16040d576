import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { type TestServer, startTestServer } from '../../testing/harness.js';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

interface Outcome {
  /** Set when the upload itself failed (EPIPE, ECONNRESET): the client never saw an answer. */
  uploadError: string | null;
  head: string;
  body: string;
}

/**
 * A client that sends its whole request before reading anything, as many simple uploaders do:
 * the socket does not read until the last byte is written. An answer sent while it uploads waits
 * in the kernel, and is lost if the server resets the connection.
 */
async function uploadThenRead(headers: string[], body: Buffer, chunked: boolean): Promise<Outcome> {
  const { hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  socket.pause();
  const received: Buffer[] = [];
  let uploadError: string | null = null;
  socket.on('error', (error: NodeJS.ErrnoException) => {
    uploadError ??= error.code ?? error.message;
  });
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const closed = once(socket, 'close');
  await once(socket, 'connect');

  const write = async (data: Buffer | string) => {
    if (socket.destroyed) return;
    if (!socket.write(data)) await Promise.race([once(socket, 'drain'), closed]);
  };
  await write(`${headers.join('\r\n')}\r\n\r\n`);
  for (let offset = 0; offset < body.length && !socket.destroyed; offset += 64 * 1024) {
    const piece = body.subarray(offset, offset + 64 * 1024);
    await write(chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece);
  }
  if (chunked) await write('0\r\n\r\n');
  socket.resume();
  await closed;
  const text = Buffer.concat(received).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  return { uploadError, head: split < 0 ? text : text.slice(0, split), body: split < 0 ? '' : text.slice(split + 4) };
}

function requestHead(extra: string[]): string[] {
  return ['POST /logs/ingest?hostname=big HTTP/1.1', 'Host: logstead', `apikey: ${server.org.ingestionKey}`, 'Content-Type: application/json', ...extra];
}

/** A body of `megabytes` of JSON that compresses only about 4:3, so the upload itself is long. */
function bigBody(megabytes: number): Buffer {
  const noise = Buffer.alloc(megabytes * 1024 * 1024 * 0.75);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  return Buffer.from(JSON.stringify({ lines: [{ line: noise.toString('base64') }] }));
}

function assertReadable413(outcome: Outcome): void {
  assert.equal(outcome.uploadError, null, `the upload failed (${outcome.uploadError}) instead of receiving the answer`);
  assert.match(outcome.head, /^HTTP\/1\.1 413 /);
  assert.match(outcome.head, /\r\nconnection: close/i);
  const body = JSON.parse(outcome.body);
  assert.equal(body.code, 'PayloadTooLarge');
  assert.match(body.error, /10 MB/);
}

describe('bodies over 10 MB: the client reads the 413, never a reset connection', () => {
  const body = bigBody(11);

  test('with Content-Length', async () => {
    assertReadable413(await uploadThenRead(requestHead([`Content-Length: ${body.length}`]), body, false));
  });

  test('chunked', async () => {
    assertReadable413(await uploadThenRead(requestHead(['Transfer-Encoding: chunked']), body, true));
  });

  test('gzip that inflates past 10 MB', async () => {
    const zipped = zlib.gzipSync(body);
    assert.ok(zipped.length < 10 * 1024 * 1024, 'the compressed upload itself is within the limit');
    assertReadable413(await uploadThenRead(requestHead([`Content-Length: ${zipped.length}`, 'Content-Encoding: gzip']), zipped, false));
  });

  test('the server keeps serving afterwards', async () => {
    const reply = await fetch(`${server.url}/logs/ingest?hostname=after`, {
      method: 'POST',
      headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ line: 'after the big ones' }] }),
    });
    assert.equal(reply.status, 200);
  });
});
