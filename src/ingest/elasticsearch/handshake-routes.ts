import os from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { elasticErrors } from '../../http/errors.js';
import { ELASTIC_CLIENT } from './client-match.js';

/** The version Logstead answers as: an 8.x that the official client and the shippers' ES 8 modes take. */
export const ELASTIC_VERSION = '8.13.0';
const CLUSTER_NAME = 'logstead';
const CLUSTER_UUID = 'bG9nc3RlYWQtbG9nc3RlYWQ';

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
 * What Elasticsearch shippers and clients ask before they post bulk bodies: the cluster's info and
 * licence, its health and nodes, templates, policies and pipelines, and whether an index exists.
 * Registered by elasticRoutes (elastic-routes.ts) in its context, so its hooks and error shape
 * hold here too; `keyed` checks an ingestion key as the bulk API does.
 */
export function registerHandshakeRoutes(app: FastifyInstance, deps: { keyed: (request: FastifyRequest) => Promise<void> }): void {
  const { keyed } = deps;
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
