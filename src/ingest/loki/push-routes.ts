import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { presentedKeys } from '../../http/credentials.js';
import { ApiError, lokiErrors } from '../../http/errors.js';
import type { IngestAdmission } from '../admission.js';
import { plainBodyBytes, trackArrivals } from '../http-body.js';
import { BadInputError, OverloadedError } from '../../lib/ingest-errors.js';
import type { Intake } from '../intake.js';
import { parseTags } from '../mezmo/params.js';
import type { SourceParams } from '../normalise.js';
import { registerPushBodyHandling } from './body.js';
import { type LokiStream, NoLabelsError, TooLargeError, decodeJsonPush, decodeProtobufPush, toRawLines } from './decode.js';

export interface LokiPushDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
}

/** Where Loki clients push: Promtail, Grafana Alloy, Fluent Bit, Vector, the Docker plugin. */
export const LOKI_PUSH_PATH = '/loki/api/v1/push';

/** The host of lines whose stream names none (no `host`, `hostname` or `instance` label). */
export const UNKNOWN_HOST = 'unknown';

/** Any error of the push route, in Loki's dialect (a text body), from the catalogue. */
function lokiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) {
    if (error.plainText) return error;
    if (error.statusCode === 413) return lokiErrors.storedTooLarge();
    if (error.statusCode === 503) return lokiErrors.unavailable(error.body.error);
    // The intake's only 403: the organisation's ingestion is suspended (Intake.admit).
    if (error.statusCode === 403) return lokiErrors.suspended();
    if (error.statusCode === 401) return lokiErrors.unauthorized();
    if (error.statusCode < 500) return lokiErrors.badRequest(error.body.error);
  }
  if (error instanceof TooLargeError) return lokiErrors.tooLarge();
  if (error instanceof NoLabelsError) return lokiErrors.noLabels();
  if (error instanceof BadInputError) return lokiErrors.badRequest(error.message);
  if (error instanceof OverloadedError) return lokiErrors.unavailable('ingestion is overloaded; retry the push later');
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return lokiErrors.tooLarge();
  if (typeof error.code === 'string' && error.code.startsWith('Z_')) return lokiErrors.badRequest('error decompressing the gzip body');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return lokiErrors.badRequest(error.message);
  request.log.error({ err: error }, 'loki push failed');
  return lokiErrors.internal();
}

/**
 * POST /loki/api/v1/push: Loki's push API, in protobuf (snappy) and JSON (gzip or not). The key
 * travels as Basic auth (as user, password or both), Bearer, or the apikey header; an
 * X-Scope-OrgID, when sent, must name the key's organisation. All or nothing: a request with one
 * malformed stream stores nothing. Answers 204 once its lines are durably written.
 */
export async function lokiPushRoutes(app: FastifyInstance, deps: LokiPushDeps): Promise<void> {
  registerPushBodyHandling(app);
  // Handed on to the server's handler, which renders a plain-text error as text (http/server.ts).
  app.setErrorHandler(async (error: FastifyError, request) => {
    throw lokiError(error, request);
  });

  const arrivals = trackArrivals(app, deps.admission, { everyPost: true });
  const release = arrivals.release;

  const authenticate = async (request: FastifyRequest): Promise<string> => {
    const keys = presentedKeys(request, { header: 'apikey', query: 'apikey' });
    if (keys.length === 0) throw lokiErrors.unauthorized();
    if (keys.length > 1) throw lokiErrors.conflictingCredentials();
    const account = await deps.accounts.accountForKey(keys[0], 'ingestion');
    if (!account) throw (await deps.accounts.accountForKey(keys[0], 'service')) ? lokiErrors.serviceKey() : lokiErrors.unauthorized();
    const orgId = request.headers['x-scope-orgid'];
    if (orgId !== undefined && (Array.isArray(orgId) || orgId.trim() !== account)) throw lokiErrors.orgMismatch();
    return account;
  };

  const decode = (request: FastifyRequest): LokiStream[] => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    // As Loki: JSON when it says so; protobuf when it says so or says nothing.
    if (type === 'application/json') return decodeJsonPush(body);
    if (type === 'application/x-protobuf' || type === '') return decodeProtobufPush(body);
    throw lokiErrors.unsupportedMediaType(`Content-Type "${type.slice(0, 80)}"`);
  };

  /** Everything before the write, in its own function so that the body and streams die before the write. */
  const prepare = async (request: FastifyRequest) => {
    const account = await authenticate(request);
    const rawLines = toRawLines(decode(request));
    request.body = undefined;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const source: SourceParams = { hostname: UNKNOWN_HOST, ip: '', mac: '', tags: parseTags(query.tags), nowMs: null };
    return deps.intake.prepare({ protocol: 'loki', account, source, rawLines, receivedAt: arrivals.arrivedAt(request), sentBytes: plainBodyBytes(request) });
  };

  app.post(LOKI_PUSH_PATH, { config: { permission: 'ingest' } }, async (request, reply) => {
    const prepared = await prepare(request);
    await deps.intake.write(prepared, request.log, () => release(request));
    return reply.code(204).send();
  });
}
