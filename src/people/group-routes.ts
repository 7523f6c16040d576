import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { QueryParseError, parseQuery } from '../query/parser.js';
import type { Group } from '../wire/types.js';
import { answeringRefusals, widenParam } from './access-answer.js';
import { type NamesOfLines, admitsOf } from './admits.js';
import { groupScope } from './group-scope.js';
import type { GroupInput, Groups } from './groups.js';
import type { ScopeFollower } from './scope-follow.js';

const search = Joi.string().allow('').max(10_000);
const scopes = Joi.alternatives().try(search, Joi.array().items(search).max(50));
/** Exact app or host names, compared case-sensitively with each line's. */
const names = Joi.array().items(Joi.string().min(1).max(512)).max(1000);
const name = Joi.string().trim().min(1).max(256);
const createSchema = Joi.object({ name: name.required(), access_scopes: scopes.default(''), apps: names.default([]), hosts: names.default([]) });
const patchSchema = Joi.object({ name, access_scopes: scopes, apps: names, hosts: names }).or('name', 'access_scopes', 'apps', 'hosts');

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

/** A list as kept: each name once, in the order given. */
const distinct = (list: string[] | undefined) => list && [...new Set(list)];

function parseGroup<T extends Partial<GroupInput>>(schema: Joi.ObjectSchema, raw: unknown): T {
  const body = validate<T>(schema, raw);
  if (body.access_scopes !== undefined) checkScopes(body.access_scopes);
  return { ...body, ...(body.apps && { apps: distinct(body.apps) }), ...(body.hosts && { hosts: distinct(body.hosts) }) };
}

/** Checks a new group as a client sends it ({name, access_scopes, apps, hosts}), its searches too; shared with the importer (import-mezmo). */
export const parseGroupCreate = (raw: unknown): GroupInput & { apps: string[]; hosts: string[] } => parseGroup(createSchema, raw);

export interface GroupRouteDeps {
  auth: ServiceAuth;
  groups: Groups;
  scopes: ScopeFollower;
  /** The store's names of lines, for what a group's scope admits. */
  names: NamesOfLines;
}

/**
 * /v1/config/groups, as Mezmo's: POST {name, access_scopes}, GET, and GET, PATCH and DELETE on
 * /{groupId}; Logstead adds exact `apps` and `hosts` lists, and PUT, which replaces all four.
 * `access_scopes` is a search in the viewer's language (or a list of them) that limits what the
 * group's members see, within the lists when they are given; a change holds from their next
 * request, and on open tails within seconds, at every node. An answer to a write names the apps
 * and hosts of the last day's lines that the group lets through (`admits`). A change that would
 * let members see every line is refused (409, naming them) unless the request says `?widen=true`.
 */
export async function groupRoutes(app: FastifyInstance, deps: GroupRouteDeps): Promise<void> {
  const { auth, groups } = deps;
  type Params = { groupId: string };
  const config = { permission: 'admin' as const, audit: 'group' };

  /** The group as saved, with what it admits as the person who saved it may see. */
  const answer = async (request: FastifyRequest, group: Group): Promise<Group> => {
    const principal = await auth.principal(request);
    return { ...group, admits: await admitsOf(deps.names, principal.account, groupScope(group), principal.scope) };
  };

  /** Changes a group (a PATCH's fields, or all of them for a PUT), its members' views and tails following. */
  const change = async (request: FastifyRequest<{ Params: Params }>, body: Partial<GroupInput>) => {
    const principal = await auth.principal(request);
    const members = await deps.scopes.membersOf(request.params.groupId);
    const access = { by: principal.role, widen: widenParam(request.query), within: principal.scope };
    const updated = await answeringRefusals(principal, () => groups.update(principal.account, request.params.groupId, body, access));
    if (!updated) throw errors.notFound();
    if (body.access_scopes !== undefined || body.apps !== undefined || body.hosts !== undefined) await deps.scopes.allOf(members);
    return answer(request, updated);
  };

  app.get('/v1/config/groups', { config: { permission: 'admin' } }, async (request) => groups.list(await auth.account(request)));

  app.get<{ Params: Params }>('/v1/config/groups/:groupId', { config: { permission: 'admin' } }, async (request) => {
    const group = await groups.get(await auth.account(request), request.params.groupId);
    if (!group) throw errors.notFound();
    return group;
  });

  app.post('/v1/config/groups', { config }, async (request) => {
    const account = await auth.account(request);
    return answer(request, await groups.create(account, parseGroupCreate(request.body)));
  });

  app.put<{ Params: Params }>('/v1/config/groups/:groupId', { config }, async (request) => change(request, parseGroupCreate(request.body)));

  app.patch<{ Params: Params }>('/v1/config/groups/:groupId', { config }, async (request) => change(request, parseGroup(patchSchema, request.body)));

  app.delete<{ Params: Params }>('/v1/config/groups/:groupId', { config }, async (request) => {
    const principal = await auth.principal(request);
    const members = await deps.scopes.membersOf(request.params.groupId);
    const access = { by: principal.role, widen: widenParam(request.query), within: principal.scope };
    if (!(await answeringRefusals(principal, () => groups.delete(principal.account, request.params.groupId, access)))) throw errors.notFound();
    await deps.scopes.allOf(members);
    return { deleted: true };
  });
}
