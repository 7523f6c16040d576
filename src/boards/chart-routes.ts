import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { type QueryParams, countParam, parseTimeRange } from '../http/filter-params.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { LogStore } from '../store/log-store.js';
import type { ChartData } from '../wire/types.js';
import type { Boards } from './boards.js';
import { chartData } from './chart-data.js';
import { parseChartGraph } from './graph.js';

const DEFAULT_BUCKETS = 60;
const MAX_BUCKETS = 1000;

/** from, to and buckets, as GET /v1/histogram takes them (Unix s or ms; at most 1000 buckets). */
function rangeOf(params: QueryParams) {
  return { ...parseTimeRange(params), buckets: countParam(params, 'buckets', DEFAULT_BUCKETS, MAX_BUCKETS) };
}

/**
 * The series of graphs: a saved graph of a board, and a graph that is not saved (the viewer's
 * "chart this"). Both are reads: whoever may search may chart, inside their access scope.
 */
export async function chartRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore; boards: Boards }): Promise<void> {
  app.get<{ Params: { boardId: string; graphId: string } }>(
    '/v1/board/:boardId/graph/:graphId/data',
    { config: { permission: 'read' } },
    async (request): Promise<ChartData> => {
      const { account, scope } = await deps.auth.principal(request);
      const range = rangeOf(request.query as QueryParams);
      const board = await deps.boards.get(account, request.params.boardId);
      const graph = board?.graphs.find((candidate) => candidate.graphId === request.params.graphId);
      if (!graph) throw errors.notFound('No such graph.');
      return chartData(deps.store, account, scope, graph, range);
    },
  );

  // POST, as the graph is a body; it changes nothing, so it is a read.
  app.post('/v1/viewer/chart', { config: { permission: 'read' } }, async (request): Promise<ChartData> => {
    const { account, scope } = await deps.auth.principal(request);
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.invalidParameter('Send a graph as a JSON object: {measure, from, to, ...}.');
    const raw = body as Record<string, unknown>;
    const range = rangeOf({ from: raw.from, to: raw.to, buckets: raw.buckets });
    return chartData(deps.store, account, scope, parseChartGraph(raw), range);
  });
}
