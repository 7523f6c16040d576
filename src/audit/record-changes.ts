import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../http/service-auth.js';
import type { AuditTrail } from './audit-trail.js';

export interface RecordChangesDeps {
  trail: AuditTrail;
  principal(request: FastifyRequest): Promise<Principal>;
  /** Who a principal is, in words: a member's e-mail, or a key's name and id. */
  actorOf(principal: Principal): Promise<string>;
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ACTIONS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };
/** The fields a created resource's id is in, in Mezmo's resources and ours. */
const ID_FIELDS = ['viewid', 'presetid', 'boardId', 'id', 'groupId', 'email'];

interface Pending {
  before: unknown;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * The audit trail's one hook: every route that declares `audit` (the resource it changes) has
 * each successful change recorded with who, when, from where, and the resource before (read with
 * the same credentials from the same address, by GET, before the change) and after (the answer).
 * A new configuration route is audited by declaring it, not by remembering to call anything.
 */
export function recordChanges(app: FastifyInstance, deps: RecordChangesDeps): void {
  const pending = new WeakMap<FastifyRequest, Pending>();

  app.addHook('preHandler', async (request) => {
    const resource = request.routeOptions.config?.audit;
    if (!resource || !CHANGES.has(request.method)) return;
    let before: unknown = null;
    if (request.method !== 'POST') {
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'servicekey', 'cookie']) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const found = await app.inject({ method: 'GET', url: request.url, headers });
      if (found.statusCode === 200) before = parsed(found.body);
    }
    pending.set(request, { before });
  });

  // Recorded before the answer leaves, so a client that saw its change succeed finds it in the trail.
  app.addHook('onSend', async (request, reply, payload) => {
    const entry = pending.get(request);
    const resource = request.routeOptions.config?.audit;
    if (!entry || !resource || reply.statusCode >= 300) return payload;
    try {
      const principal = await deps.principal(request);
      const after = request.method === 'DELETE' || typeof payload !== 'string' ? null : parsed(payload);
      const params = request.params as Record<string, string> | undefined;
      const fromParams = Object.values(params ?? {}).at(-1);
      const source = (after ?? entry.before) as Record<string, unknown> | null;
      const fromBody = source && typeof source === 'object' ? ID_FIELDS.map((field) => source[field]).find((value) => typeof value === 'string') : undefined;
      await deps.trail.record(principal.account, {
        actor: await deps.actorOf(principal),
        address: request.ip,
        action: `${resource}.${ACTIONS[request.method]}`,
        resource,
        // A create's id is in its answer (its path names only the collection).
        id: String((request.method === 'POST' ? fromBody ?? fromParams : fromParams ?? fromBody) ?? ''),
        before: entry.before,
        after,
      });
    } catch (error) {
      request.log.error({ err: error }, 'the audit trail could not record a change');
    }
    return payload;
  });
}
