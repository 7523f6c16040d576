import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { type QueryParams, oneParam, parseLineFilter } from '../http/filter-params.js';
import type { LogStore } from '../store/log-store.js';
import type { FieldsResponse } from '../wire/types.js';
import { summarizeFields } from './field-summary.js';

const DEFAULT_TOP = 5;
/** Top values per field at most: each is counted exactly, so a larger list costs the engine more memory. */
export const MAX_TOP = 100;
/** Fields listed at most, those most lines have first: a flood of distinct keys (ids used as keys) stays bounded. */
export const MAX_FIELDS = 200;

/** `top`: a whole number from 1 to MAX_TOP, DEFAULT_TOP when absent; anything else is refused. */
function topParam(query: QueryParams): number {
  const text = oneParam(query, 'top');
  if (text === undefined || text.trim() === '') return DEFAULT_TOP;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > MAX_TOP) {
    throw errors.invalidParameter(`Parameter "top" must be a whole number from 1 to ${MAX_TOP}, got "${text}".`);
  }
  return Number(text);
}

/**
 * GET /v1/viewer/fields: the fields sidebar. Every field the search's lines carry (built-in,
 * parsed and indexed meta), how many lines have it, its top values with exact counts, and for a
 * number min, max, average and percentiles. Takes the export filters (from, to, query, apps,
 * hosts, levels, tags), held inside the reader's scope, and `top`.
 */
export async function fieldsRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore }): Promise<void> {
  app.get('/v1/viewer/fields', { config: { permission: 'read' } }, async (request, reply): Promise<FieldsResponse | undefined> => {
    const { account, scope } = await deps.auth.principal(request);
    const query = request.query as QueryParams;
    const filter = parseLineFilter(query, scope);
    const top = topParam(query);
    // Over millions of lines the count takes seconds; a viewer that moved on (a new search aborts
    // the last request) closes the connection, and its queries are dropped or stopped.
    const abandoned = new AbortController();
    reply.raw.on('close', () => reply.raw.writableFinished || abandoned.abort());
    try {
      return summarizeFields(await deps.store.fieldStats({ ...filter, account }, { top, maxFields: MAX_FIELDS, signal: abandoned.signal }), top);
    } catch (error) {
      if (!abandoned.signal.aborted) throw error;
      // No one is left to answer: not a failure of the server's.
      reply.hijack();
      reply.raw.destroy();
      return undefined;
    }
  });
}
