import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Sessions } from '../http/sessions.js';
import { validate } from '../http/validation.js';
import { answeringRefusals, widenParam } from './access-answer.js';
import type { Groups } from './groups.js';
import { type LinkSender, sendLink } from './invitations.js';
import { MemberError, type Members, normaliseEmail } from './members.js';
import type { ScopeFollower } from './scope-follow.js';

/** Roles the API may give: `owner` is given and taken only by an operator (`logstead member add`), as in Mezmo's UI. */
export const API_ROLES = ['admin', 'member', 'readonly'] as const;

const createSchema = Joi.object({
  email: Joi.string().trim().email({ tlds: false }).max(320).required(),
  role: Joi.string().trim().lowercase().valid(...API_ROLES).required(),
  groups: Joi.array().items(Joi.string().trim().min(1).max(256)).max(100).default([]),
});
// `owner` is taken here only to say "unchanged": a client may send back the whole member it read.
const updateSchema = Joi.object({
  role: Joi.string().trim().lowercase().valid(...API_ROLES, 'owner'),
  groups: Joi.array().items(Joi.string().trim().min(1).max(256)).max(100),
}).or('role', 'groups');

export interface MemberRouteDeps {
  auth: ServiceAuth;
  accounts: Accounts;
  members: Members;
  groups: Groups;
  sessions: Sessions;
  invitations: LinkSender;
  scopes: ScopeFollower;
}

/** Checks a new member as a client sends it ({email, role, groups}); shared with the importer (import-mezmo). */
export const parseMemberCreate = (raw: unknown) => validate<{ email: string; role: (typeof API_ROLES)[number]; groups: string[] }>(createSchema, raw);

/** The "unknown group" error, Joi-style, on the `groups` field. */
const unknownGroups = (names: string[]) =>
  errors.validationFailed([{ message: `"groups" names unknown group(s): ${names.join(', ')}`, key: 'groups', field: 'Groups' }]);

/** An owner's role, Joi-style on the `role` field: only an operator changes it (`logstead member add`). */
const ownerRoleNotGiven = () =>
  errors.validationFailed([{ message: '"role" must be one of [admin, member, readonly]: owner is given by an operator, with `logstead member add`', key: 'role', field: 'Role' }]);
const ownerRoleFixed = () =>
  errors.validationFailed([{ message: '"role" of an owner cannot be changed through the API; an operator changes it with `logstead member add`', key: 'role', field: 'Role' }]);

/**
 * /v1/config/members, as Mezmo's: POST {email, role, groups[]}, GET, and GET, PUT {role, groups}
 * and DELETE on /{email}. Creating a member e-mails them a one-time link to choose a password.
 * The last owner stays, and so does the last owner in no scoped group; only an owner changes an
 * owner's role or groups; taking a member out of their last scoped group, which lets them see
 * every line, needs `?widen=true`. Demoting or removing a member ends their sessions at every node.
 */
export async function memberRoutes(app: FastifyInstance, deps: MemberRouteDeps): Promise<void> {
  const { auth, members } = deps;
  type Params = { email: string };
  const config = { permission: 'admin' as const, audit: 'member' };

  const groupIds = async (account: string, refs: string[] | undefined) => {
    if (refs === undefined) return undefined;
    const { ids, unknown } = await deps.groups.resolve(account, refs);
    if (unknown.length) throw unknownGroups(unknown);
    return ids;
  };
  const organisationName = async (account: string) => (await deps.accounts.list()).find((org) => org.account === account)?.name ?? account;
  const mayChangeOwner = async (request: FastifyRequest) => (await auth.principal(request)).role === 'owner';

  app.get('/v1/config/members', { config: { permission: 'admin' } }, async (request) => members.list(await auth.account(request)));

  app.get<{ Params: Params }>('/v1/config/members/:email', { config: { permission: 'admin' } }, async (request) => {
    const member = await members.get(await auth.account(request), request.params.email);
    if (!member) throw errors.notFound();
    return member;
  });

  app.post('/v1/config/members', { config }, async (request) => {
    const account = await auth.account(request);
    const body = parseMemberCreate(request.body);
    const groups = (await groupIds(account, body.groups)) ?? [];
    const asker = await auth.principal(request);
    let created;
    try {
      created = await answeringRefusals(asker, () => members.create(account, { email: body.email, role: body.role, groups }, { by: asker.role, within: asker.scope }));
    } catch (error) {
      if (error instanceof MemberError && error.kind === 'duplicate') throw errors.conflict(error.message);
      throw error;
    }
    const invitation = await sendLink(deps.invitations, 'invite', created, await organisationName(account));
    if (!invitation.sent) request.log.warn({ detail: invitation.detail }, 'an invitation e-mail was not sent');
    return { ...(await members.get(account, created.email)), invitation };
  });

  app.put<{ Params: Params }>('/v1/config/members/:email', { config }, async (request) => {
    const account = await auth.account(request);
    const body = validate<{ role?: (typeof API_ROLES)[number] | 'owner'; groups?: string[] }>(updateSchema, request.body);
    const existing = await members.row(account, request.params.email);
    if (!existing) throw errors.notFound();
    if (body.role === 'owner' && existing.role !== 'owner') throw ownerRoleNotGiven();
    if (body.role === 'owner') body.role = undefined; // an owner sent back as owner: nothing to change
    if (existing.role === 'owner' && body.role !== undefined && !(await mayChangeOwner(request))) {
      throw errors.roleForbidden((await auth.principal(request)).role, 'owner');
    }
    // Nor is it taken here, even by an owner or a service key: as in Mezmo, the owner role changes outside the API.
    if (existing.role === 'owner' && body.role !== undefined) throw ownerRoleFixed();
    const asker = await auth.principal(request);
    const access = { by: asker.role, widen: widenParam(request.query), within: asker.scope };
    try {
      const change = { role: body.role, groups: await groupIds(account, body.groups) };
      const updated = await answeringRefusals(asker, () => members.update(account, request.params.email, change, access));
      if (!updated) throw errors.notFound();
      if (updated.demoted) await deps.sessions.endForMember(existing.id);
      if (body.groups !== undefined) await deps.scopes.member(existing.id);
      return updated.member;
    } catch (error) {
      if (error instanceof MemberError) throw memberError(error);
      throw error;
    }
  });

  app.delete<{ Params: Params }>('/v1/config/members/:email', { config }, async (request) => {
    const account = await auth.account(request);
    const existing = await members.row(account, request.params.email);
    if (!existing) throw errors.notFound();
    if (existing.role === 'owner' && !(await mayChangeOwner(request))) throw errors.roleForbidden((await auth.principal(request)).role, 'owner');
    try {
      const asker = await auth.principal(request);
      await answeringRefusals(asker, () => members.delete(account, normaliseEmail(request.params.email), { by: asker.role, within: asker.scope }));
    } catch (error) {
      if (error instanceof MemberError) throw memberError(error);
      throw error;
    }
    // The channels they set stop at once (and at other nodes within a second; deliveries check too).
    await deps.scopes.removed(account);
    return { deleted: true };
  });
}

function memberError(error: MemberError) {
  if (error.kind === 'duplicate' || error.kind === 'last-owner') return errors.conflict(error.message);
  return unknownGroups([error.message.replace(/^Unknown group\(s\): /, '')]);
}
