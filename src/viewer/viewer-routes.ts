import type { FastifyInstance } from 'fastify';
import { exportRecord } from '../store/export-record.js';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { compileQuery } from '../query/compile.js';
import type { LogStore } from '../store/log-store.js';
import type { StoredLine } from '../store/types.js';
import type { ContextResponse, ExportRecord } from '../wire/types.js';
import { type QueryParams, choiceParam, countParam, oneParam, parseLineFilter } from '../http/filter-params.js';

const CONTEXT_SPAN_MS = 30 * 24 * 3_600_000;

/** The viewer's read APIs beyond export: filter facets with counts, and a line's context. */
export async function viewerRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore }): Promise<void> {
  /** GET /v1/viewer/facets: top hosts, apps, levels and tags with counts, for the filter menus. */
  app.get('/v1/viewer/facets', { config: { permission: 'read' } }, async (request) => {
    const { account, scope } = await deps.auth.principal(request);
    const query = request.query as QueryParams;
    return deps.store.facets({ ...parseLineFilter(query, scope), account }, countParam(query, 'limit', 50, 500));
  });

  /**
   * GET /v1/viewer/context?id&ts&by=host|app|both&before&after: the lines around one line from the
   * same host, app or both. With `anchor=before` (or `after`) it returns only that side, starting
   * next to the given line, which is how "load more" pages outwards.
   */
  app.get('/v1/viewer/context', { config: { permission: 'read' } }, async (request): Promise<ContextResponse> => {
    const { account, scope } = await deps.auth.principal(request);
    const query = request.query as QueryParams;
    const id = oneParam(query, 'id') ?? '';
    const ts = Number(oneParam(query, 'ts'));
    if (!/^\d{1,19}$/.test(id) || !Number.isSafeInteger(ts) || ts < 0) throw errors.invalidParameter('Parameters "id" and "ts" must identify a line (its _id and _ts).');
    const by = choiceParam(query, 'by', ['host', 'app', 'both'], 'both');
    const side = choiceParam(query, 'anchor', ['before', 'after', 'both'], 'both');
    // The line and its neighbours only inside the reader's scope: a line they cannot see is "no such line".
    const condition = compileQuery('', scope);
    const line = await deps.store.lineAt(account, { ts, id }, condition);
    if (!line) throw errors.notFound('No such line.');
    const filter = {
      account,
      condition,
      fromMs: Math.max(0, ts - CONTEXT_SPAN_MS),
      toMs: ts + CONTEXT_SPAN_MS,
      hosts: by !== 'app' ? [line.host] : undefined,
      apps: by !== 'host' ? [line.app] : undefined,
    };
    const around = async (prefer: 'head' | 'tail', limit: number): Promise<ExportRecord[]> => {
      const rows: StoredLine[] = [];
      if (limit === 0) return [];
      for await (const chunk of deps.store.read(filter, { prefer, limit, after: { ts, id }, chronological: true })) rows.push(...chunk);
      return rows.map(exportRecord);
    };
    const before = side === 'after' ? [] : await around('tail', countParam(query, 'before', 20, 500));
    const after = side === 'before' ? [] : await around('head', countParam(query, 'after', 20, 500));
    return { line: exportRecord(line), by, before, after };
  });
}
