import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { lokiErrors } from '../../http/errors.js';
import { LIMITS } from '../../wire/limits.js';

/**
 * Body handling for the push route: a gzip or deflate body (Fluent Bit's `compress gzip`, Vector's
 * `compression = "gzip"`) is inflated as it is read, and the 10 MB limit applies to the inflated
 * size, so a small bomb is refused with 413 and stops inflating there. Every body is read as bytes;
 * the route decodes it by its content type once the key is checked.
 */
export function registerPushBodyHandling(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding === '' || encoding === 'identity') return payload;
    if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') throw lokiErrors.unsupportedMediaType(`Content-Encoding "${encoding.slice(0, 40)}"`);
    const inflate = encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
    // Fastify compares Content-Length with this count, not with the inflated length.
    let encodedBytes = 0;
    payload.on('data', (chunk: Buffer) => {
      encodedBytes += chunk.length;
      (inflate as unknown as { receivedEncodedLength: number }).receivedEncodedLength = encodedBytes;
    });
    payload.on('error', (error) => inflate.destroy(error));
    // A corrupt body fails the inflate, which fastify hears through the stream it reads; an
    // unheard stream error would end the process.
    inflate.on('error', () => {});
    // Past the limit fastify answers 413 and stops listening: stop inflating the rest of a bomb.
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
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, (_request, body, done) => done(null, body));
}
