import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { MAX_TIME_MS, type QueryParams, countParam, oneParam, parseTimeRange } from '../http/filter-params.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { compileQuery } from '../query/compile.js';
import type { RetentionPolicy } from '../retention/policy.js';
import type { LineFilter, LogStore } from '../store/log-store.js';

const DAY_MS = 86_400_000;
/** How many apps, hosts or tags a list answers unless `limit` says otherwise, and at most. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

/** The three ways Mezmo breaks usage down: the path's plural, and the line's field. */
const KINDS = { apps: 'app', hosts: 'host', tags: 'tag' } as const;
type Kind = keyof typeof KINDS;

const filterFor = (kind: Kind, name: string): Partial<LineFilter> => (kind === 'apps' ? { apps: [name] } : kind === 'hosts' ? { hosts: [name] } : { tags: [name] });
const percentage = (part: number, total: number) => (total > 0 ? Math.round((part / total) * 10_000) / 100 : 0);

/**
 * A v2 time: an RFC 3339 date-time (Mezmo's form, "T" required) or, as every other read route
 * takes, Unix seconds or ms. Only its UTC day counts, as in Mezmo.
 */
function v2Time(query: QueryParams, name: 'from' | 'to', fallback: number): number {
  const value = oneParam(query, name)?.trim();
  if (value === undefined || value === '') return fallback;
  let ms: number;
  if (/^\d+$/.test(value)) ms = Number(value) < 1e11 ? Number(value) * 1000 : Number(value);
  else if (/^\d{4}-\d{2}-\d{2}T/.test(value)) ms = Date.parse(value);
  else ms = Number.NaN;
  if (!Number.isFinite(ms) || ms > MAX_TIME_MS) {
    throw errors.invalidParameter(`Parameter "${name}" must be an RFC 3339 date-time (such as 2026-11-26T00:00:00Z) or a Unix time, got "${value}".`);
  }
  return ms;
}

/**
 * Mezmo's usage paths, beside GET /v1/usage (usage-routes.ts): v1 per app, host or tag
 * (`[{name, current_total, percentage_of_total}]`, or one of them by name, null when it has no
 * lines), and v2 in bytes (`{from, to, results}`), over the caller's organisation's stored lines
 * as their reader sees them. v1's `current_total` counts lines and its `percentage_of_total` is of
 * lines, as Mezmo defines usage ("a percentage of the total number of lines ingested"); v2 counts
 * bytes.
 */
export async function mezmoUsageRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore; policy: RetentionPolicy; now: () => number }): Promise<void> {
  const { auth, store, policy } = deps;

  /** The caller's organisation and lines, and the range asked, from its retention to now by default. */
  const selection = async (request: { query: unknown }, range: (query: QueryParams, keptFrom: number, now: number) => { fromMs: number; toMs: number }) => {
    const principal = await auth.principal(request as never);
    const now = deps.now();
    const keptFrom = policy.keptFrom(principal.account, now);
    const { fromMs, toMs } = range(request.query as QueryParams, keptFrom, now);
    const filter: LineFilter = { account: principal.account, fromMs, toMs, condition: compileQuery('', principal.scope) };
    return filter;
  };
  const v1Range = (query: QueryParams, keptFrom: number, now: number) => parseTimeRange(query, { fromMs: keptFrom, toMs: now });
  const v2Range = (query: QueryParams, keptFrom: number, now: number) => {
    const from = v2Time(query, 'from', keptFrom);
    const to = v2Time(query, 'to', now);
    if (from > to) throw errors.reversedTimeRange();
    // Whole UTC days: from the start of from's day to the end of to's.
    return { fromMs: Math.floor(from / DAY_MS) * DAY_MS, toMs: Math.floor(to / DAY_MS) * DAY_MS + DAY_MS - 1 };
  };
  const v2Envelope = (filter: LineFilter) => ({ from: new Date(filter.fromMs).toISOString(), to: new Date(filter.toMs + 1).toISOString() });

  for (const kind of Object.keys(KINDS) as Kind[]) {
    const dimension = KINDS[kind];
    app.get(`/v1/usage/${kind}`, { config: { permission: 'read' } }, async (request) => {
      const filter = await selection(request, v1Range);
      const limit = countParam(request.query as QueryParams, 'limit', DEFAULT_LIMIT, MAX_LIMIT);
      const [total, rows] = await Promise.all([store.volume(filter), store.volumeBy(filter, dimension, limit, 'lines')]);
      return rows.map((row) => ({ name: row.name, current_total: row.lines, percentage_of_total: percentage(row.lines, total.lines) }));
    });

    app.get<{ Params: { name: string } }>(`/v1/usage/${kind}/:name`, { config: { permission: 'read' } }, async (request, reply) => {
      const filter = await selection(request, v1Range);
      const [total, own] = await Promise.all([store.volume(filter), store.volume({ ...filter, ...filterFor(kind, request.params.name) })]);
      // Mezmo answers null for a name without lines.
      if (own.lines === 0) return reply.type('application/json').send('null');
      return { name: request.params.name, current_total: own.lines, percentage_of_total: percentage(own.lines, total.lines) };
    });

    app.get(`/v2/usage/${kind}`, { config: { permission: 'read' } }, async (request) => {
      const filter = await selection(request, v2Range);
      const limit = countParam(request.query as QueryParams, 'limit', DEFAULT_LIMIT, MAX_LIMIT);
      const rows = await store.volumeBy(filter, dimension, limit);
      return { ...v2Envelope(filter), results: rows.map((row) => ({ name: row.name, total_bytes: row.bytes })) };
    });

    app.get<{ Params: { name: string } }>(`/v2/usage/${kind}/:name`, { config: { permission: 'read' } }, async (request) => {
      const filter = await selection(request, v2Range);
      const own = await store.volume({ ...filter, ...filterFor(kind, request.params.name) });
      return { ...v2Envelope(filter), results: own.lines > 0 ? [{ name: request.params.name, total_bytes: own.bytes }] : [] };
    });
  }

  app.get('/v2/usage', { config: { permission: 'read' } }, async (request) => {
    const filter = await selection(request, v2Range);
    const total = await store.volume(filter);
    return { ...v2Envelope(filter), results: { plan_bytes: total.bytes } };
  });
}
