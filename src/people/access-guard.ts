import type { Role } from '../wire/types.js';
import { type ConfigKysely, onPostgres } from '../repository/open.js';
import { type AccessScope, scopeWithin, seesEveryLine } from '../query/access-scope.js';
import { groupEntries, storedScope } from './group-scope.js';

/** Who asks for a change of members' groups or of a group's scope, and whether they allow it to widen access. */
export interface AccessChange {
  /**
   * The role of whoever asks: only an owner changes another owner's role or groups, or the scope of
   * a group an owner is in. Operators (the command line, the importer, a single sign-on provider's
   * groups claim, which an operator configured) ask as 'owner'.
   */
  by: Role;
  /** The change may leave members in no scoped group, so that they see every line (`?widen=true`). */
  widen?: boolean;
  /**
   * The access scope of whoever asks (absent: every line). An asker limited by a scope may give,
   * change or take only access inside it: no member they add, change or remove may see, before or
   * after, a line they may not (issue 39: no credential they make can do more than they can).
   */
  within?: AccessScope;
}

export class AccessChangeError extends Error {
  constructor(
    readonly kind: 'owner-only' | 'last-unscoped-owner' | 'widens' | 'beyond-scope',
    message: string,
    /** For 'widens': the e-mails of the members who would see every line; for 'beyond-scope', those past the asker's scope. */
    readonly members: string[] = [],
  ) {
    super(message);
  }
}

/** A member as far as access goes: their role, and whether any of their groups limits what they see. */
export interface Standing {
  email: string;
  role: Role;
  scoped: boolean;
  /** What they see: the entries of their scoped groups, or null for every line. */
  scope: AccessScope;
}

/** Each member of an organisation by id, with their standing now (within `trx`). */
export async function standings(trx: ConfigKysely, account: string): Promise<Map<string, Standing>> {
  const members = await trx.selectFrom('members').select(['id', 'email', 'role']).where('account', '=', account).execute();
  const memberships = await trx
    .selectFrom('group_members as gm')
    .innerJoin('member_groups as g', 'g.id', 'gm.group_id')
    .select(['gm.member_id', 'g.access_scopes', 'g.apps', 'g.hosts'])
    .where('g.account', '=', account)
    .execute();
  const entries = new Map<string, ReturnType<typeof groupEntries>>();
  for (const membership of memberships) {
    const added = groupEntries(storedScope(membership));
    if (added.length) entries.set(membership.member_id, [...(entries.get(membership.member_id) ?? []), ...added]);
  }
  return new Map(
    members.map((member) => {
      const scope = entries.get(member.id) ?? null;
      return [member.id, { email: member.email, role: member.role, scoped: scope !== null, scope }];
    }),
  );
}

const unscopedOwners = (people: Map<string, Standing>) => [...people.values()].filter((person) => person.role === 'owner' && !person.scoped);

/**
 * Runs a change of members' roles or groups, or of groups, inside `trx`, and refuses it (the
 * transaction then rolls back) when it leaves the organisation with no owner in no scoped group,
 * while it had one, or lets a scoped member see every line unless the change says `widen`. On
 * PostgreSQL the organisation's row is locked first, so two such changes at once are decided one
 * after the other; SQLite writes one transaction at a time. `work` gets the standings before it.
 */
export async function guardedChange<T>(trx: ConfigKysely, account: string, change: AccessChange, work: (before: Map<string, Standing>) => Promise<T>): Promise<T> {
  if (onPostgres(trx)) await trx.selectFrom('accounts').select('account').where('account', '=', account).forUpdate().execute();
  const before = await standings(trx, account);
  const result = await work(before);
  const after = await standings(trx, account);

  const ownersBefore = unscopedOwners(before);
  if (ownersBefore.length > 0 && unscopedOwners(after).length === 0) {
    const names = ownersBefore.map((owner) => owner.email).join(', ');
    throw new AccessChangeError(
      'last-unscoped-owner',
      `This change would leave the organisation with no owner in no scoped group (${names} would no longer see every line); keep at least one owner unscoped, or take another owner out of every scoped group first.`,
    );
  }
  const widened = [...before]
    .filter(([id, person]) => person.scoped && after.get(id)?.scoped === false)
    .map(([, person]) => person.email)
    .sort();
  if (widened.length > 0 && !change.widen) {
    throw new AccessChangeError('widens', `This change would let ${widened.join(', ')} see every line.`, widened);
  }
  refuseBeyondScope(before, after, change.within ?? null);
  return result;
}

/**
 * Refuses a change by an asker limited by `within` that touches a member (adds, removes, or
 * changes their role or scope) who sees, before or after it, lines outside `within`: a scoped admin
 * manages only people whose access lies inside their own. Inside is judged as scopeWithin judges it,
 * by the searches alone, so a scope not shown to be inside counts as outside.
 */
function refuseBeyondScope(before: Map<string, Standing>, after: Map<string, Standing>, within: AccessScope): void {
  if (seesEveryLine(within)) return;
  const same = (a: Standing | undefined, b: Standing | undefined) => a !== undefined && b !== undefined && a.role === b.role && JSON.stringify(a.scope) === JSON.stringify(b.scope);
  const beyond = [...new Set([...before.keys(), ...after.keys()])]
    .filter((id) => !same(before.get(id), after.get(id)))
    .flatMap((id) => [before.get(id), after.get(id)].filter((standing): standing is Standing => standing !== undefined && !scopeWithin(standing.scope, within)))
    .map((standing) => standing.email);
  if (beyond.length) {
    const names = [...new Set(beyond)].sort();
    throw new AccessChangeError('beyond-scope', `this change would give, change or take the access of ${names.join(', ')}, who would see lines outside your scope`, names);
  }
}

/** Refuses a change by someone other than an owner to what an owner may see or do; `message` says which. */
export function refuseUnlessOwner(change: AccessChange, message: string): void {
  if (change.by !== 'owner') throw new AccessChangeError('owner-only', message);
}
