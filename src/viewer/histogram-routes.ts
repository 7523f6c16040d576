import type { FastifyInstance } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { LogStore } from '../store/log-store.js';
import type { HistogramBucket, HistogramResponse } from '../wire/types.js';
import { type QueryParams, countParam, parseLineFilter } from '../http/filter-params.js';

const DEFAULT_BUCKETS = 60;
const MAX_BUCKETS = 1000;

/**
 * GET /v1/histogram: how many lines match, over time, split by level; the viewer's timeline.
 * Takes the export filters (from, to, hosts, apps, levels, tags, query) and `buckets`.
 */
export async function histogramRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore }): Promise<void> {
  app.get('/v1/histogram', { config: { permission: 'read' } }, async (request): Promise<HistogramResponse> => {
    const { account, scope } = await deps.auth.principal(request);
    const query = request.query as QueryParams;
    const filter = parseLineFilter(query, scope);
    const count = countParam(query, 'buckets', DEFAULT_BUCKETS, MAX_BUCKETS);
    const spanMs = filter.toMs - filter.fromMs + 1;
    const bucketMs = Math.max(1, Math.ceil(spanMs / count));
    // Fewer buckets than asked when the range is short (a 2 ms range has two 1 ms buckets): none starts after `to`.
    const buckets: HistogramBucket[] = Array.from({ length: Math.ceil(spanMs / bucketMs) }, (_, index) => ({
      ts: filter.fromMs + index * bucketMs,
      count: 0,
      levels: {},
    }));
    for (const row of await deps.store.histogram({ ...filter, account }, bucketMs)) {
      const bucket = buckets[row.bucket];
      bucket.count += row.count;
      bucket.levels[row.level] = row.count;
    }
    return { from: filter.fromMs, to: filter.toMs, interval: bucketMs, buckets };
  });
}
