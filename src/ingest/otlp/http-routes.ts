import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { drainRequest } from '../../http/drain-request.js';
import { errors } from '../../http/errors.js';
import { LIMITS } from '../../wire/limits.js';
import type { Ticket } from '../admission.js';
import { type OtlpEncoding, otlpApiError, statusBody, successBody } from './answers.js';
import { type OtlpDeps, authenticate, ingestOtlp, keysOf } from './intake.js';
import { decodeProtobuf, parseJson } from './mapping.js';

/** OTLP/HTTP's logs path, on the main port (the collector's `otlphttp` exporter appends it to its endpoint). */
export const OTLP_LOGS_PATH = '/v1/logs';

/** As the main error handler (http/server.ts): what a refused upload may still send before its connection closes. */
const DRAIN_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

const encodingOf = (request: FastifyRequest): OtlpEncoding => (/protobuf/i.test(String(request.headers['content-type'] ?? '')) ? 'protobuf' : 'json');

/** A body's size from its headers; undefined when it is compressed or unsized (then counted at the limit). */
function plainBodyBytes(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length']);
  const encoded = !['', 'identity'].includes(String(request.headers['content-encoding'] ?? '').trim().toLowerCase());
  return !Number.isFinite(length) || length < 0 || encoded ? undefined : Math.min(length, LIMITS.bodyBytes);
}

/**
 * gzip (and deflate) bodies inflated before the parser reads them, the 10 MB limit applying to the
 * inflated size: a small bomb gets 413 and the inflater stops on the chunk that passes the limit.
 */
function inflateBodies(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding === '' || encoding === 'identity') return payload;
    if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') throw errors.invalidParameter(`Unsupported Content-Encoding "${encoding}": send gzip or none.`);
    const inflate = encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
    let encodedBytes = 0;
    payload.on('data', (chunk: Buffer) => {
      encodedBytes += chunk.length;
      (inflate as unknown as { receivedEncodedLength: number }).receivedEncodedLength = encodedBytes;
    });
    payload.on('error', (error) => inflate.destroy(error));
    inflate.on('error', () => {});
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
}

interface Arrival {
  at: number;
  ticket?: Ticket;
}

/**
 * POST /v1/logs: OTLP/HTTP in protobuf or JSON, gzip or not. Answers ExportLogsServiceResponse
 * after the durable write, and errors as a google.rpc.Status in the request's encoding, with the
 * status codes OTLP senders act on (400 never retried; 503 with Retry-After retried).
 */
export async function otlpHttpRoutes(app: FastifyInstance, deps: OtlpDeps): Promise<void> {
  inflateBodies(app);
  app.removeAllContentTypeParsers();
  const keepBuffer = (_request: FastifyRequest, body: Buffer | string, done: (error: Error | null, body?: unknown) => void) => done(null, body);
  app.addContentTypeParser(['application/x-protobuf', 'application/protobuf', 'application/json'], { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, keepBuffer);

  const arrivals = new WeakMap<FastifyRequest, Arrival>();
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return;
    const arrival: Arrival = { at: Date.now() };
    arrivals.set(request, arrival);
    arrival.ticket = await deps.admission.admit(plainBodyBytes(request) ?? LIMITS.bodyBytes);
  });
  const release = (request: FastifyRequest) => arrivals.get(request)?.ticket?.release();
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));

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
      account,
      decoded: () => (encoding === 'protobuf' ? decodeProtobuf(body) : parseJson(body)),
      receivedAt: arrivals.get(request)?.at ?? Date.now(),
      sentBytes: plainBodyBytes(request),
      log: request.log,
      queued: () => release(request),
    });
    const answer = successBody(warning, encoding);
    return reply.code(200).header('content-type', answer.contentType).send(answer.body);
  });
}
