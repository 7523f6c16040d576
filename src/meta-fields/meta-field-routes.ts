import type { FastifyInstance } from 'fastify';
import { MAX_TIME_MS } from '../http/filter-params.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { seesEveryLine } from '../query/access-scope.js';
import { compileQuery } from '../query/compile.js';
import type { LogStore } from '../store/log-store.js';
import type { MetaTypeRegistry } from './meta-types.js';

/**
 * GET /v1/config/meta-fields (a Logstead addition): the organisation's indexed meta fields and
 * today's count of new ones against LOGSTEAD_MAX_META_FIELDS_PER_DAY, so a user can see why a
 * field is not searchable.
 *
 * A reader with an access scope is told only of the fields that stored lines inside the scope
 * carry (the store's lines within retention, read with the scope like every read), each with the
 * organisation's type for it, and no `firstIndexed` day (null): the day a field was first indexed,
 * and the day's count of new fields (`addedToday`, `remainingToday`, left out), may come from
 * lines outside the scope. The registry is the organisation's record of every line that ever came,
 * so it cannot be cut down to a scope; the stored lines can.
 */
export async function metaFieldRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; metaTypes: MetaTypeRegistry; store: LogStore }): Promise<void> {
  app.get('/v1/config/meta-fields', { config: { permission: 'read' } }, async (request) => {
    const { account, scope } = await deps.auth.principal(request);
    const today = await deps.metaTypes.day(account);
    if (!seesEveryLine(scope)) {
      // From the first millisecond: the store holds the range to the organisation's retention (and restored lines).
      const carried = await deps.store.metaFieldPaths({ account, fromMs: 0, toMs: MAX_TIME_MS, condition: compileQuery('', scope) });
      const inScope = new Set(carried.map((path) => path.replaceAll('\u0000', '\ufffd')));
      const fields = (await deps.metaTypes.fields(account)).filter((field) => inScope.has(field.path)).map((field) => ({ ...field, firstIndexed: null }));
      return { day: today.day, limitPerDay: today.limit, fields };
    }
    return {
      day: today.day,
      limitPerDay: today.limit,
      addedToday: today.added,
      remainingToday: Math.max(0, today.limit - today.added),
      fields: await deps.metaTypes.fields(account),
    };
  });
}
