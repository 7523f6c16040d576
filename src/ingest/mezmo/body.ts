import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from './body-json.js';
import { BadInputError } from '../../lib/ingest-errors.js';
import { inflateRequestBodies } from '../http-body.js';
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
  inflateRequestBodies(app, (encoding) => new BadInputError(`unsupported content-encoding "${encoding}"`));

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
