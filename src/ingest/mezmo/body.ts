import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from './body-json.js';
import { BadInputError } from '../errors.js';
import { LIMITS } from '../../wire/limits.js';

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
    if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') throw new BadInputError(`unsupported content-encoding "${encoding}"`);
    const inflate = encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
    // Fastify compares Content-Length with this count, not with the inflated length.
    let encodedBytes = 0;
    payload.on('data', (chunk: Buffer) => {
      encodedBytes += chunk.length;
      (inflate as unknown as { receivedEncodedLength: number }).receivedEncodedLength = encodedBytes;
    });
    payload.on('error', (error) => inflate.destroy(error));
    // A corrupt body fails the inflate. When the body is read, fastify hears of it through the
    // stream it reads; when it is never read (its content type refused first), nobody would, and an
    // unheard stream error ends the process. Once the request is over the error has nothing to do.
    inflate.on('error', () => {});
    // Past the limit fastify stops listening but would leave the inflater running through
    // whatever was sent: a 10 MB bomb is gigabytes of inflating for nobody. Stop it here, on the
    // same chunk that makes fastify answer 413 (this listener runs first).
    let inflatedBytes = 0;
    inflate.on('data', (chunk: Buffer) => {
      inflatedBytes += chunk.length;
      if (inflatedBytes > LIMITS.bodyBytes) {
        payload.unpipe(inflate);
        inflate.destroy();
      }
    });
    return payload.pipe(inflate) as unknown as Readable & typeof payload;
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, (_request, body, done) => {
    const buffer = body as Buffer;
    if (buffer.length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBody(buffer));
    } catch {
      done(null, UNPARSABLE_BODY);
    }
  });
}
