import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from './errors.js';
import type { Role } from '../wire/types.js';

/**
 * What a route needs of its caller, declared by every route (`config: { permission }`), so that
 * who may do what is written beside each route and decided in one place.
 * - `public`: no credentials, or credentials of its own (health, metrics' key, sign-in, signed
 *   download links, the viewer's files);
 * - `ingest`: an ingestion key;
 * - `read`: search, live tail, export, context, histogram, usage; seeing views and alerts;
 * - `write`: also creating, editing and deleting views, alerts, categories and preset alerts;
 * - `admin`: also keys and every other organisation setting;
 * - `owner`: also the organisation itself.
 * Each level includes the ones after `ingest`. A service key holds every level but `ingest`.
 */
export const PERMISSIONS = ['public', 'ingest', 'read', 'write', 'admin', 'owner'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * A member's role, as Mezmo names them. Each grants one level above and every level below it;
 * the README's table says the same in words. Service keys hold `owner`, for automation.
 */
export const ROLES = ['owner', 'admin', 'member', 'readonly'] as const satisfies readonly Role[];
export type { Role };

const GRANTS: Record<Role, Permission> = { readonly: 'read', member: 'write', admin: 'admin', owner: 'owner' };
const LEVELS: Permission[] = ['read', 'write', 'admin', 'owner'];

/** Whether a role may use a route that declared `permission` (public and ingest routes have credentials of their own). */
export function roleAllows(role: Role, permission: Permission): boolean {
  if (permission === 'public' || permission === 'ingest') return true;
  return LEVELS.indexOf(GRANTS[role]) >= LEVELS.indexOf(permission);
}

/** The least role that may use a route of this permission, for messages. */
export function leastRoleFor(permission: Permission): Role {
  return [...ROLES].reverse().find((role) => roleAllows(role, permission)) ?? 'owner';
}

/** Whose role a request carries (service-auth.ts answers, once per request). */
export interface RoleOfRequest {
  principal(request: FastifyRequest): Promise<{ role: Role }>;
}

/**
 * The one place roles are enforced: before any route runs, a route that declared `read`, `write`,
 * `admin` or `owner` is refused with 401 to a caller without credentials and 403 to a role below
 * it. The route itself asks the same principal for its organisation and scope.
 */
export function enforcePermissions(app: FastifyInstance, auth: RoleOfRequest): void {
  app.addHook('onRequest', async (request) => {
    const permission = request.routeOptions.config?.permission;
    if (permission === undefined || permission === 'public' || permission === 'ingest') return;
    const { role } = await auth.principal(request);
    if (!roleAllows(role, permission)) throw errors.roleForbidden(role, leastRoleFor(permission));
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: Permission;
    /** Set on a route that changes configuration: the resource it changes, which the audit trail names. */
    audit?: string;
  }
}

/** A route, as "METHOD /path", with the permission it declared. */
const declared = new WeakMap<FastifyInstance, Map<string, Permission>>();

/**
 * Refuses to start a server with a route that declares no permission (its listen fails, and every
 * test with it), and records what each declared. Checked once every route is registered, since an
 * encapsulated plugin's own hooks may set the permission of the routes it adds (the viewer's
 * files). `exempt` names routes that plugins add and that serve no resource of their own (the
 * CORS plugin's preflight route).
 */
export function requireDeclaredPermissions(app: FastifyInstance, exempt: ReadonlyArray<string>): void {
  const routes: Array<{ method: string | string[]; url: string; config?: { permission?: Permission } }> = [];
  app.addHook('onRoute', (route) => void routes.push(route));
  app.addHook('onReady', async () => {
    const permissions = new Map<string, Permission>();
    for (const route of routes) {
      for (const method of [route.method].flat()) {
        const name = `${method} ${route.url}`;
        const permission = route.config?.permission;
        if (permission === undefined) {
          if (exempt.includes(name)) continue;
          throw new Error(`The route ${name} declares no permission: give it config: { permission } (src/http/permissions.ts).`);
        }
        if (!PERMISSIONS.includes(permission)) throw new Error(`The route ${name} declares an unknown permission "${permission}".`);
        permissions.set(name, permission);
      }
    }
    declared.set(app, permissions);
  });
}

/** Every route of a server with the permission it declared, as "METHOD /path". */
export function declaredPermissions(app: FastifyInstance): ReadonlyMap<string, Permission> {
  return declared.get(app) ?? new Map();
}
