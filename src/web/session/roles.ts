import type { Role, Session } from '../api-client/client.js';

/**
 * What a role lets a person do in the viewer, as the server decides it (src/http/permissions.ts):
 * readonly reads; member also edits views, alerts and categories; admin also runs members, groups,
 * keys and the audit trail; owner also the organisation. Controls a role cannot use are hidden:
 * the server would refuse them anyway.
 */
const RANK: Record<Role, number> = { readonly: 0, member: 1, admin: 2, owner: 3 };

/** A session from a server that predates roles is a service key's, which holds every right. */
const roleOf = (session: Pick<Session, 'role'>): Role => session.role ?? 'owner';

/** Creating, editing and deleting views, their alerts, categories and preset alerts. */
export const mayEdit = (session: Pick<Session, 'role'>): boolean => RANK[roleOf(session)] >= RANK.member;

/** Members, groups and the audit trail. */
export const mayAdminister = (session: Pick<Session, 'role'>): boolean => RANK[roleOf(session)] >= RANK.admin;

/** Who the top bar says is signed in: the member's e-mail, or that it is a service key. */
export const signedInAs = (session: Pick<Session, 'email'>): string => session.email ?? 'service key';

/** The roles the members API gives (owner is given only by an operator, with `logstead member add`). */
export const GIVEN_ROLES = ['readonly', 'member', 'admin'] as const satisfies readonly Role[];

/** What each role may do, in a few words, for the role menus' hints. */
export const ROLE_HINTS: Record<Role, string> = {
  readonly: 'search, tail and export; sees views and alerts',
  member: 'also creates and edits views, alerts and categories',
  admin: 'also members, groups, keys, retention and the audit trail',
  owner: 'also the organisation itself',
};
