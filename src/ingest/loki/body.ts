import type { FastifyInstance } from 'fastify';
import { lokiErrors } from '../../http/errors.js';
import { LIMITS } from '../../wire/limits.js';
import { inflateRequestBodies } from '../http-body.js';

/**
 * Body handling for the push route: a gzip or deflate body (Fluent Bit's `compress gzip`, Vector's
 * `compression = "gzip"`) is inflated as it is read, and the 10 MB limit applies to the inflated
 * size, so a small bomb is refused with 413 and stops inflating there. Every body is read as bytes;
 * the route decodes it by its content type once the key is checked.
 */
export function registerPushBodyHandling(app: FastifyInstance): void {
  inflateRequestBodies(app, (encoding) => lokiErrors.unsupportedMediaType(`Content-Encoding "${encoding}"`));

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, (_request, body, done) => done(null, body));
}
