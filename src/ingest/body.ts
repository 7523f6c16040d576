import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { LIMITS } from './params.js';

/** Marks a body that is not JSON; the handler decides the error after checking credentials. */
export const UNPARSABLE_BODY = Symbol('unparsable body');

/**
 * Body handling for the ingest routes:
 * - gzip and deflate request bodies are inflated before parsing, and the 10 MB limit applies to
 *   the inflated size, so a small compressed bomb is refused with 413;
 * - any content type is read as JSON (clients send `application/json` with or without a charset,
 *   some nothing at all), and an empty or broken body is passed on rather than rejected here, so
 *   that a request without credentials still gets 401 first (Vector probes with an empty POST).
 */
export function registerIngestBodyHandling(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding === '' || encoding === 'identity') return payload;
    if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') throw errors.badRequest();
    const inflate = encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
    // Fastify compares Content-Length with this count, not with the inflated length.
    let encodedBytes = 0;
    payload.on('data', (chunk: Buffer) => {
      encodedBytes += chunk.length;
      (inflate as unknown as { receivedEncodedLength: number }).receivedEncodedLength = encodedBytes;
    });
    payload.on('error', (error) => inflate.destroy(error));
    // Unpiped before the body ended: the request is being drained after an error (a body over the
    // limit), and nothing will read this inflater again.
    inflate.on('unpipe', () => {
      if (!inflate.writableEnded) inflate.destroy();
    });
    return payload.pipe(inflate) as unknown as Readable & typeof payload;
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, (_request, body, done) => {
    const buffer = body as Buffer;
    if (buffer.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(buffer.toString('utf8')));
    } catch {
      done(null, UNPARSABLE_BODY);
    }
  });
}
