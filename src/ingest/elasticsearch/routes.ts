import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
import { ELASTIC_CLIENT, addElasticClientConstraint } from './client-match.js';
import { documentToLine } from './map.js';

export interface ElasticIngestDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
}

/** The version Logstead answers as: an 8.x that the official client and the shippers' ES 8 modes take. */
export const ELASTIC_VERSION = '8.13.0';
const CLUSTER_NAME = 'logstead';
const CLUSTER_UUID = 'bG9nc3RlYWQtbG9nc3RlYWQ';
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

const info = () => ({
  name: os.hostname(),
  cluster_name: CLUSTER_NAME,
  cluster_uuid: CLUSTER_UUID,
  version: {
    number: ELASTIC_VERSION,
    build_flavor: 'default',
    build_type: 'logstead',
    build_hash: '0000000000000000000000000000000000000000',
    build_date: '2024-03-22T03:35:46.757803203Z',
    build_snapshot: false,
    lucene_version: '9.10.0',
    minimum_wire_compatibility_version: '7.17.0',
    minimum_index_compatibility_version: '7.0.0',
  },
  tagline: 'You Know, for Search',
});

const license = () => ({
  license: { status: 'active', uid: CLUSTER_UUID, type: 'basic', issue_date: '2024-01-01T00:00:00.000Z', issue_date_in_millis: 1704067200000, max_nodes: 1000, max_resource_units: null, issued_to: CLUSTER_NAME, issuer: 'elasticsearch', start_date_in_millis: -1 },
});

/**
 * The Elasticsearch bulk API (`POST /_bulk`, `POST /{index}/_bulk`) and the calls shippers make
 * before it. Every answer carries `X-Elastic-Product: Elasticsearch` (the official client refuses a
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

  // What shippers and clients ask first. `GET /` and `HEAD /` only for Elasticsearch clients
  // (client-match.ts): a browser gets the viewer there.
  app.get('/', { config: { permission: 'public' }, constraints: ELASTIC_CLIENT }, async () => info());
  app.get('/_license', { config: { permission: 'public' } }, async () => license());
  app.get('/_xpack', { config: { permission: 'public' } }, async () => ({
    build: { hash: info().version.build_hash, date: info().version.build_date },
    license: { uid: CLUSTER_UUID, type: 'basic', mode: 'basic', status: 'active' },
    features: {},
    tagline: 'You know, for X',
  }));
  const ingestKey = { config: { permission: 'ingest' as const }, preHandler: keyed };
  app.get('/_cluster/health', ingestKey, async () => ({
    cluster_name: CLUSTER_NAME,
    status: 'green',
    timed_out: false,
    number_of_nodes: 1,
    number_of_data_nodes: 1,
    active_primary_shards: 0,
    active_shards: 0,
    relocating_shards: 0,
    initializing_shards: 0,
    unassigned_shards: 0,
    delayed_unassigned_shards: 0,
    number_of_pending_tasks: 0,
    number_of_in_flight_fetch: 0,
    task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: 100,
  }));
  // Sniffing clients ask for the nodes: this one, at the address they reached.
  const nodes = async (request: FastifyRequest) => ({
    _nodes: { total: 1, successful: 1, failed: 0 },
    cluster_name: CLUSTER_NAME,
    nodes: { logstead: { name: os.hostname(), version: ELASTIC_VERSION, roles: ['data', 'ingest', 'master'], http: { publish_address: request.host } } },
  });
  app.get('/_nodes', ingestKey, nodes);
  app.get('/_nodes/:filter', ingestKey, nodes);
  app.get('/_nodes/:filter/:metric', ingestKey, nodes);
  // Templates, lifecycle policies and ingest pipelines: accepted and not kept (Logstead has no
  // mappings); asked for, none exists, so a shipper that checks first puts its own, which is accepted.
  const acknowledged = async () => ({ acknowledged: true });
  for (const [path, what] of [
    ['/_index_template/:name', 'an index template'],
    ['/_template/:name', 'a legacy index template'],
    ['/_component_template/:name', 'a component template'],
    ['/_ilm/policy/:name', 'a lifecycle policy'],
    ['/_ingest/pipeline/:name', 'an ingest pipeline'],
  ] as const) {
    app.put(path, ingestKey, acknowledged);
    app.get(path, ingestKey, async () => {
      throw elasticErrors.resourceNotFound(what);
    });
  }
  // An index "exists" (any name does: lines are stored whatever index they name) and can be created.
  const indexName = (request: FastifyRequest) => {
    const { index } = request.params as { index: string };
    if (index.startsWith('_')) throw elasticErrors.invalidIndexName(index);
    return index;
  };
  app.head('/:index', { ...ingestKey, constraints: ELASTIC_CLIENT }, async (request, reply: FastifyReply) => {
    indexName(request);
    return reply.code(200).send();
  });
  app.put('/:index', ingestKey, async (request) => ({ acknowledged: true, shards_acknowledged: true, index: indexName(request) }));
}


