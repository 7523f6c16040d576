import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { drainRequest } from '../../http/drain-request.js';
import { errors } from '../../http/errors.js';
import { LIMITS } from '../../wire/limits.js';
import { inflateRequestBodies, plainBodyBytes, trackArrivals } from '../http-body.js';
import { type OtlpEncoding, otlpApiError, statusBody, successBody } from './answers.js';
import { type OtlpDeps, authenticate, ingestOtlp, keysOf } from './intake.js';
import { linesOfRequest, parseJson } from './mapping.js';
import { linesOfProtobuf } from './protobuf-lines.js';

/** OTLP/HTTP's logs path, on the main port (the collector's `otlphttp` exporter appends it to its endpoint). */
export const OTLP_LOGS_PATH = '/v1/logs';

/** As the main error handler (http/server.ts): what a refused upload may still send before its connection closes. */
const DRAIN_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

const encodingOf = (request: FastifyRequest): OtlpEncoding => (/protobuf/i.test(String(request.headers['content-type'] ?? '')) ? 'protobuf' : 'json');

/**
 * POST /v1/logs: OTLP/HTTP in protobuf or JSON, gzip or not. Answers ExportLogsServiceResponse
 * after the durable write, and errors as a google.rpc.Status in the request's encoding, with the
 * status codes OTLP senders act on (400 never retried; 503 with Retry-After retried).
 */
export async function otlpHttpRoutes(app: FastifyInstance, deps: OtlpDeps): Promise<void> {
  inflateRequestBodies(app, (encoding) => errors.invalidParameter(`Unsupported Content-Encoding "${encoding}": send gzip or none.`));
  app.removeAllContentTypeParsers();
  const keepBuffer = (_request: FastifyRequest, body: Buffer | string, done: (error: Error | null, body?: unknown) => void) => done(null, body);
  app.addContentTypeParser(['application/x-protobuf', 'application/protobuf', 'application/json'], { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, keepBuffer);

  const arrivals = trackArrivals(app, deps.admission, { everyPost: true });
  const release = arrivals.release;

  app.setErrorHandler(async (error: FastifyError, request, reply: FastifyReply) => {
    const apiError = otlpApiError(error);
    if (apiError.statusCode === 500) request.log.error({ err: error }, 'OTLP request failed');
    else if (apiError.statusCode === 503) request.log.warn(apiError.body.error);
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      await drainRequest(request.raw, DRAIN_LIMITS);
    }
    const answer = statusBody(apiError, encodingOf(request));
    return reply.code(apiError.statusCode).headers(apiError.headers).header('content-type', answer.contentType).send(answer.body);
  });

  app.post(OTLP_LOGS_PATH, { config: { crossOrigin: true, permission: 'ingest' } }, async (request, reply) => {
    const encoding = encodingOf(request);
    const account = await authenticate(deps.accounts, keysOf(request.headers));
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    request.body = undefined;
    const warning = await ingestOtlp(deps, {
      protocol: 'otlp-http',
      account,
      lines: () => (encoding === 'protobuf' ? linesOfProtobuf(body) : linesOfRequest(parseJson(body))),
      receivedAt: arrivals.arrivedAt(request),
      sentBytes: plainBodyBytes(request),
      log: request.log,
      queued: () => release(request),
    });
    const answer = successBody(warning, encoding);
    return reply.code(200).header('content-type', answer.contentType).send(answer.body);
  });
}
