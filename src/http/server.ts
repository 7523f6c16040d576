import type { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyServerOptions, LogController } from 'fastify';
import { answerClientError } from './client-errors.js';
import { apiErrorForDomain } from './domain-errors.js';
import { drainRequest } from './drain-request.js';
import { ApiError, errors } from './errors.js';
import { loggerOptions, requestId } from './logging.js';

/**
 * What an error answered before its body was read will still read of the upload before closing:
 * a 10 MB ingest limit plus as much again in flight, and no more than a slow client needs.
 */
export const DRAIN_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

/** Maps anything thrown while serving a request to a body from the error catalogue; domain errors through domain-errors.ts. */
export function toApiError(error: FastifyError, isIngest: boolean): ApiError {
  if (error instanceof ApiError) return error;
  const domain = apiErrorForDomain(error);
  if (domain) return domain;
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return isIngest ? errors.payloadTooLarge() : errors.bodyTooLarge();
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return errors.unsupportedMediaType();
  const clientFault =
    (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) ||
    (typeof error.code === 'string' && error.code.startsWith('Z_')); // a corrupt gzip body
  if (clientFault) return isIngest ? errors.badRequest() : errors.invalidParameter(error.message);
  return errors.internal();
}

/** Whether a string anywhere in a parsed JSON value, keys included, contains NUL. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => key.includes('\u0000') || holdsNul(item));
  return false;
}

/** Whether a logger writes debug lines (pino loggers say so; fastify's type does not show it). */
const debugEnabled = (log: FastifyBaseLogger) => (log as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.('debug') === true;

/**
 * The HTTP server shell: logging (logging.ts), request ids, the error catalogue and 404s. Routes are
 * added by the caller. `logStream` replaces stdout as the logs' destination (tests). `trustProxy`
 * (LOGSTEAD_TRUST_PROXY) says whose X-Forwarded-For gives a request's client address.
 */
export function createHttpServer(logLevel: string, logStream?: Writable, trustProxy: boolean | number | string = false): FastifyInstance {
  const app = Fastify({
    // Every form is one fastify takes; the union only confuses the choice among its overloads.
    trustProxy: trustProxy as FastifyServerOptions['trustProxy'] & boolean,
    logger: loggerOptions(logLevel, logStream),
    // Per-request logs would cost more than ingesting the lines they describe.
    logController: new LogController({ disableRequestLogging: true }),
    // Every log line written while serving a request carries this id as reqId, and the answer
    // carries it as x-request-id, so a client's report can be matched with the server's log.
    genReqId: requestId,
    // Malformed URLs and over-long parameters get the catalogue's envelope too.
    frameworkErrors: (error, request, reply) => {
      (reply as FastifyReply).code(400).header('x-request-id', request.id).send(errors.invalidParameter(`Bad request: ${error.message}`).body);
    },
    // Requests the HTTP parser refuses get a catalogued body too, readable before the connection closes.
    clientErrorHandler: answerClientError,
    bodyLimit: 1024 * 1024,
    // Node's 16 KiB default would refuse a search within the documented 10,000 characters once it
    // is percent-encoded in the URL (up to 12 bytes per character).
    http: { maxHeaderSize: 128 * 1024 },
  });
  // Bodies of the read and configuration APIs: JSON, where an empty body is no body (some clients
  // send a JSON content type on every request) and keys such as "constructor" are plain data.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body as string);
    } catch {
      return done(errors.invalidParameter('The request body is not valid JSON.'), undefined);
    }
    // Names and settings are kept as text, which PostgreSQL cannot hold with NUL in it.
    if (/\\u0000/i.test(body as string) && holdsNul(parsed)) return done(errors.invalidParameter('The request body holds a NUL character (\\u0000), which no name or setting may contain.'), undefined);
    done(null, parsed);
  });
  // Callback hooks: they run on every ingest request, and need no promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // One line per answered request, at debug level only (LOGSTEAD_LOG_LEVEL=debug or trace).
  app.addHook('onResponse', (request, reply, done) => {
    if (debugEnabled(request.log)) request.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request.url.startsWith('/logs/'));
    if (apiError.statusCode === 500) request.log.error({ err: error }, 'request failed');
    else if (apiError.statusCode === 503) request.log.warn(apiError.body.error);
    // Refused before its body was read (too large, a bad encoding): the connection closes after
    // this answer, and the client must be able to read it (drain-request.ts).
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      await drainRequest(request.raw, DRAIN_LIMITS);
    }
    reply.code(apiError.statusCode).headers(apiError.headers);
    if (apiError.plainText) return reply.type('text/plain; charset=utf-8').send(`${apiError.body.error}\n`);
    return reply.send(apiError.body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errors.notFound(`No route for ${request.method} ${request.url.split('?')[0]}`).body);
  });
  return app;
}
