import type { FastifyInstance } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { Principal, ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import { auditRoutes } from './audit-routes.js';
import { AuditTrail } from './audit-trail.js';
import { recordChanges } from './record-changes.js';

export interface AuditSubsystem extends Subsystem {
  trail: AuditTrail;
  /** Hooks every route passes through, added before any route: records the changes of routes that declare `audit`. */
  guard(app: FastifyInstance): void;
}

/** The audit trail: every configuration change and sign-in, by whom, from where, before and after. */
export function startAudit(deps: { db: ConfigKysely; auth: ServiceAuth; accounts: Accounts }): AuditSubsystem {
  const trail = new AuditTrail(deps.db);
  const actorOf = async (principal: Principal) => {
    if (principal.member) return principal.member.email;
    const key = await deps.accounts.getKey(principal.account, principal.keyId);
    return `key "${key?.name ?? ''}" (${principal.keyId})`;
  };
  return {
    trail,
    guard: (app) => recordChanges(app, { trail, principal: (request) => deps.auth.principal(request), actorOf }),
    routes: async (app) => {
      await app.register(auditRoutes, { auth: deps.auth, trail });
    },
    close: async () => {},
  };
}
