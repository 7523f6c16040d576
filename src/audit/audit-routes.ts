import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { type QueryParams, countParam, oneParam } from '../http/filter-params.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { seesEveryLine } from '../query/access-scope.js';
import type { AuditTrail } from './audit-trail.js';

/** A time given as Unix seconds or ms (told apart by size), or undefined. */
function time(query: QueryParams, name: string): number | undefined {
  const value = oneParam(query, name)?.trim();
  if (!value) return undefined;
  if (!/^\d{1,16}$/.test(value)) throw errors.invalidParameter(`Parameter "${name}" must be a Unix time in seconds or milliseconds, got "${value}".`);
  const n = Number(value);
  return n < 1e11 ? n * 1000 : n;
}

/**
 * GET /v1/config/audit?from&to&actor&resource&limit&next (a Logstead addition, admins only):
 * the organisation's audit trail, newest first, a page at a time; `next` from one answer asks
 * for the following page.
 *
 * Refused (403, naming the scope) to a member with an access scope: the trail records every
 * change in the organisation with the resources before and after (views' and rules' apps and
 * queries, restores with the lines they found), and cannot be cut down to a scope.
 */
export async function auditRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; trail: AuditTrail }): Promise<void> {
  app.get('/v1/config/audit', { config: { permission: 'admin' } }, async (request) => {
    const { account, scope } = await deps.auth.principal(request);
    if (!seesEveryLine(scope)) throw errors.scopeForbidden(scope ?? [], "the audit trail records the whole organisation's changes, with what they name and count outside your scope");
    const query = request.query as QueryParams;
    const next = oneParam(query, 'next') ?? oneParam(query, 'cursor');
    if (next !== undefined && !/^\d{1,19}$/.test(next.trim())) throw errors.invalidParameter('Parameter "next" must be the "next" of an earlier answer.');
    return deps.trail.list(account, {
      from: time(query, 'from'),
      to: time(query, 'to'),
      actor: oneParam(query, 'actor')?.trim() || undefined,
      resource: oneParam(query, 'resource')?.trim() || undefined,
      cursor: next === undefined ? undefined : Number(next),
      limit: countParam(query, 'limit', 100, 500),
    });
  });
}
