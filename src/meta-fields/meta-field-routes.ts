import type { FastifyInstance } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { MetaTypeRegistry } from './meta-types.js';

/**
 * GET /v1/config/meta-fields (a Logstead addition): the organisation's indexed meta fields and
 * today's count of new ones against LOGSTEAD_MAX_META_FIELDS_PER_DAY, so a user can see why a
 * field is not searchable.
 */
export async function metaFieldRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; metaTypes: MetaTypeRegistry }): Promise<void> {
  app.get('/v1/config/meta-fields', { config: { permission: 'read' } }, async (request) => {
    const account = await deps.auth.account(request);
    const today = await deps.metaTypes.day(account);
    return {
      day: today.day,
      limitPerDay: today.limit,
      addedToday: today.added,
      remainingToday: Math.max(0, today.limit - today.added),
      fields: await deps.metaTypes.fields(account),
    };
  });
}
