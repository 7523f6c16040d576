import type { FastifyInstance } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { QueryParams } from '../http/filter-params.js';
import type { UsageReports } from './usage.js';

/**
 * GET /v1/usage?from=&to=: the caller's organisation's lines and bytes per day, its top apps and
 * hosts by volume, and the retention in force (usage.ts).
 */
export async function usageRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; usage: UsageReports }): Promise<void> {
  app.get('/v1/usage', { config: { permission: 'read' } }, async (request) => {
    const { account, scope } = await deps.auth.principal(request);
    return deps.usage.report(account, request.query as QueryParams, scope);
  });
}
