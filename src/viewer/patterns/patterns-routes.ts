import type { FastifyInstance } from 'fastify';
import type { ServiceAuth } from '../../http/service-auth.js';
import type { LogStore } from '../../store/log-store.js';
import type { PatternsResponse } from '../../wire/types.js';
import { type QueryParams, countParam, parseLineFilter } from '../../http/filter-params.js';
import { findPatterns } from './find-patterns.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const DEFAULT_BUCKETS = 30;
const MAX_BUCKETS = 200;

/**
 * GET /v1/viewer/patterns: the search's lines grouped into templates (docs/patterns.md). Takes the
 * export filters (from, to, query, apps, hosts, levels, tags), held inside the reader's access
 * scope, `limit` (patterns, default 50, at most 500) and `buckets` (of each pattern's volume,
 * default 30, at most 200).
 */
export async function patternsRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore }): Promise<void> {
  app.get('/v1/viewer/patterns', { config: { permission: 'read' } }, async (request): Promise<PatternsResponse> => {
    const { account, scope } = await deps.auth.principal(request);
    const query = request.query as QueryParams;
    const filter = parseLineFilter(query, scope);
    const limit = countParam(query, 'limit', DEFAULT_LIMIT, MAX_LIMIT);
    const buckets = countParam(query, 'buckets', DEFAULT_BUCKETS, MAX_BUCKETS);
    return findPatterns(deps.store, { ...filter, account }, { limit, buckets });
  });
}
