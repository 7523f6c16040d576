import { randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { presentedKeys } from '../../http/credentials.js';
import { drainRequest } from '../../http/drain-request.js';
import { elasticErrors } from '../../http/errors.js';
import { DRAIN_LIMITS, toApiError } from '../../http/server.js';
import { LIMITS } from '../../wire/limits.js';
import type { IngestAdmission } from '../admission.js';
import { plainBodyBytes, trackArrivals } from '../http-body.js';
import type { Intake, PreparedRequest } from '../intake.js';
import { registerIngestBodyHandling } from '../mezmo/body.js';
import { parseTags } from '../mezmo/params.js';
import type { SourceParams } from '../normalise.js';
import { type BulkItem, parseBulk } from './bulk.js';
import { addElasticClientConstraint } from './client-match.js';
import { registerHandshakeRoutes } from './handshake-routes.js';
import { documentToLine } from './map.js';

export interface ElasticIngestDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
}

/** Where the bulk API is posted. */
export const BULK_PATHS = ['/_bulk', '/:index/_bulk'] as const;

/** The host a document names none for, unless the request names one (`?hostname=`). */
const UNKNOWN_HOST = 'unknown';

/** The key in `Authorization: ApiKey <key>` or `ApiKey base64(<name>:<key>)`, as Elasticsearch clients send it. */
function apiKeyOf(authorization: string | undefined): string | undefined {
  const match = /^\s*apikey\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // A plain key is not base64 of "name:key"; its decoding, if any, is no printable pair.
  if (colon > 0 && /^[\x20-\x7e]+$/.test(decoded) && decoded.slice(colon + 1).trim()) return decoded.slice(colon + 1).trim();
  return match[1];
}

/** An item's answer, in the bulk response's `items`. */
function itemAnswer(item: BulkItem, id: string, seqNo: number): Record<string, unknown> {
  if ('error' in item) return { [item.action]: { _index: item.index ?? null, _id: item.id ?? null, status: 400, error: { ...item.error, index: item.index ?? null } } };
  return {
    [item.action]: { _index: item.index, _id: id, _version: 1, result: 'created', _shards: { total: 1, successful: 1, failed: 0 }, _seq_no: seqNo, _primary_term: 1, status: 201 },
  };
}

/**
 * The Elasticsearch bulk API (`POST /_bulk`, `POST /{index}/_bulk`) and the calls shippers make
 * before it (handshake-routes.ts). Every answer carries `X-Elastic-Product: Elasticsearch` (the official client refuses a
 * server without it), and every error is in Elasticsearch's shape (errors.ts, elasticErrors).
 */
export async function elasticRoutes(app: FastifyInstance, deps: ElasticIngestDeps): Promise<void> {
  addElasticClientConstraint(app);
  // gzip and deflate bodies, the 10 MB limit after inflating, as on /logs/ingest; the body itself
  // is kept as bytes, for the NDJSON parser.
  registerIngestBodyHandling(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMITS.bodyBytes }, (_request, body, done) => done(null, body));

  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-elastic-product', 'Elasticsearch');
    done(null, payload);
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const elastic = elasticErrors.fromApiError(toApiError(error, true));
    if (elastic.statusCode === 500) request.log.error({ err: error }, 'request failed');
    else if (elastic.statusCode === 503) request.log.warn(elastic.message);
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      await drainRequest(request.raw, DRAIN_LIMITS);
    }
    return reply.code(elastic.statusCode).headers(elastic.headers).send(elastic.elasticBody);
  });

  // Before a bulk body is read: the arrival time, then admission, as for /logs/ingest.
  const arrivals = trackArrivals(app, deps.admission, { everyPost: false });
  const admit = arrivals.admit;
  const release = arrivals.release;

  const authenticate = async (request: FastifyRequest): Promise<string> => {
    const keys = [...new Set([...presentedKeys(request, { header: 'apikey', query: 'apikey' }), apiKeyOf(request.headers.authorization)].filter((key): key is string => key !== undefined))];
    if (keys.length === 0) throw elasticErrors.missingCredentials(request.url.split('?')[0]);
    if (keys.length > 1) throw elasticErrors.conflictingCredentials();
    const account = await deps.accounts.accountForKey(keys[0], 'ingestion');
    if (!account) throw (await deps.accounts.accountForKey(keys[0], 'service')) ? elasticErrors.serviceKey() : elasticErrors.wrongCredentials();
    return account;
  };
  const keyed = async (request: FastifyRequest) => void (await authenticate(request));

  /** Everything before the write, in its own function so that the body and the documents die before it. */
  const prepare = async (request: FastifyRequest): Promise<{ prepared?: PreparedRequest; items: BulkItem[] }> => {
    const account = await authenticate(request);
    const query = request.query as Record<string, unknown>;
    const pathIndex = (request.params as { index?: string }).index;
    if (pathIndex?.startsWith('_')) throw elasticErrors.invalidIndexName(pathIndex);
    const hostname = typeof query.hostname === 'string' && query.hostname.trim() ? query.hostname.trim().slice(0, LIMITS.hostname) : UNKNOWN_HOST;
    const source: SourceParams = { hostname, ip: '', mac: '', tags: parseTags(query.tags), nowMs: null };
    const items = parseBulk(request.body as Buffer | undefined, pathIndex);
    request.body = undefined;
    const rawLines: unknown[] = [];
    for (const item of items) {
      if ('doc' in item) {
        rawLines.push(documentToLine(item.doc, item.index));
        // Only the item's answer is needed from here on.
        (item as { doc?: unknown }).doc = undefined;
      }
    }
    if (rawLines.length === 0) return { items };
    const prepared = await deps.intake.prepare({ protocol: 'elasticsearch', account, source, rawLines, receivedAt: arrivals.arrivedAt(request), sentBytes: plainBodyBytes(request) });
    return { prepared, items };
  };

  const bulk = async (request: FastifyRequest) => {
    const started = Date.now();
    const { prepared, items } = await prepare(request);
    // Answered only once the lines are durably written; all of a request's lines are written together.
    if (prepared) await deps.intake.write(prepared, request.log, () => release(request));
    const prefix = randomBytes(12).toString('base64url');
    let stored = 0;
    const answers = items.map((item, at) => itemAnswer(item, item.id ?? `${prefix}${at.toString(36).padStart(4, '0')}`, 'doc' in item ? stored++ : 0));
    return { took: Date.now() - started, errors: items.some((item) => 'error' in item), items: answers };
  };
  for (const path of BULK_PATHS) app.post(path, { config: { permission: 'ingest' }, onRequest: admit }, bulk);
  registerHandshakeRoutes(app, { keyed });
}
