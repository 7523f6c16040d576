import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { QueryParseError, parseQuery } from '../query/parser.js';
import type { Groups } from './groups.js';
import type { ScopeFollower } from './scope-follow.js';

const search = Joi.string().allow('').max(10_000);
const scopes = Joi.alternatives().try(search, Joi.array().items(search).max(50));
const createSchema = Joi.object({ name: Joi.string().trim().min(1).max(256).required(), access_scopes: scopes.default('') });
const patchSchema = Joi.object({ name: Joi.string().trim().min(1).max(256), access_scopes: scopes }).or('name', 'access_scopes');

/** Every search of an access scope must parse, as a view's query must: a bad one is refused with where it went wrong. */
function checkScopes(value: unknown): void {
  const searches = [value].flat().filter((item): item is string => typeof item === 'string');
  searches.forEach((text, index) => {
    try {
      parseQuery(text);
    } catch (error) {
      if (!(error instanceof QueryParseError)) throw error;
      const key = Array.isArray(value) ? `access_scopes[${index}]` : 'access_scopes';
      throw errors.validationFailed([{ message: `"${key}" is not a valid search: ${error.message}`, key, field: 'Access scope' }]);
    }
  });
}

/** Checks a new group as a client sends it ({name, access_scopes}), its searches too; shared with the importer (import-mezmo). */
export function parseGroupCreate(raw: unknown): { name: string; access_scopes: unknown } {
  const body = validate<{ name: string; access_scopes: unknown }>(createSchema, raw);
  checkScopes(body.access_scopes);
  return body;
}

/**
 * /v1/config/groups, as Mezmo's: POST {name, access_scopes}, GET, and GET, PATCH and DELETE on
 * /{groupId}. `access_scopes` is a search in the viewer's language (or a list of them) that limits
 * what the group's members see; a change holds from their next request, and on open tails within
 * seconds, at every node.
 */
export async function groupRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; groups: Groups; scopes: ScopeFollower }): Promise<void> {
  const { auth, groups } = deps;
  type Params = { groupId: string };
  const config = { permission: 'admin' as const, audit: 'group' };

  app.get('/v1/config/groups', { config: { permission: 'admin' } }, async (request) => groups.list(await auth.account(request)));

  app.get<{ Params: Params }>('/v1/config/groups/:groupId', { config: { permission: 'admin' } }, async (request) => {
    const group = await groups.get(await auth.account(request), request.params.groupId);
    if (!group) throw errors.notFound();
    return group;
  });

  app.post('/v1/config/groups', { config }, async (request) => {
    const account = await auth.account(request);
    return groups.create(account, parseGroupCreate(request.body));
  });

  app.patch<{ Params: Params }>('/v1/config/groups/:groupId', { config }, async (request) => {
    const account = await auth.account(request);
    const body = validate<{ name?: string; access_scopes?: unknown }>(patchSchema, request.body);
    if (body.access_scopes !== undefined) checkScopes(body.access_scopes);
    const updated = await groups.update(account, request.params.groupId, body);
    if (!updated) throw errors.notFound();
    if (body.access_scopes !== undefined) await deps.scopes.allOf(await deps.scopes.membersOf(updated.id));
    return updated;
  });

  app.delete<{ Params: Params }>('/v1/config/groups/:groupId', { config }, async (request) => {
    const members = await deps.scopes.membersOf(request.params.groupId);
    if (!(await groups.delete(await auth.account(request), request.params.groupId))) throw errors.notFound();
    await deps.scopes.allOf(members);
    return { deleted: true };
  });
}
