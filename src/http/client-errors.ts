import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ApiError, errors } from './errors.js';

/** How long a refused connection keeps reading what the client still sends, so it can read the answer. */
const LINGER_MS = 5000;

const answered = new WeakSet<Duplex>();

/**
 * The browser headers every other answer gets from helmet (security-headers.ts), for answers written
 * before fastify sees the request: nothing in them is for a browser to run or frame.
 */
const SECURITY_HEADERS =
  "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\nX-Content-Type-Options: nosniff\r\n" +
  'X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n';

function apiErrorFor(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.requestTimeout();
  // Everything else is a request Node's parser refused: a space in the URL (Fluent Bit does not
  // encode hostname=my host), a malformed header, a bad Content-Length, a broken chunk.
  return errors.badRequest();
}

/**
 * Answers a request that Node's HTTP parser refused, before any route ran, with a body from the
 * catalogue (fastify's default is its own generic body). The answer is written, the connection
 * half-closed, and what the client is still uploading is read and dropped for a few seconds: closing
 * outright would make the kernel reset the connection under a sender mid-upload, and it would see
 * a reset instead of the answer.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The parser refuses every later chunk of the same connection again; one answer is enough.
  if (answered.has(socket)) return;
  answered.add(socket);
  const { statusCode, body } = apiErrorFor(error);
  const json = JSON.stringify(body);
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n${SECURITY_HEADERS}` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
