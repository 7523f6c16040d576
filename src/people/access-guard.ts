import type { Role } from '../wire/types.js';
import { type ConfigKysely, onPostgres } from '../repository/open.js';
import { isScoped } from './group-scope.js';

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
}

export class AccessChangeError extends Error {
  constructor(
    readonly kind: 'owner-only' | 'last-unscoped-owner' | 'widens',
    message: string,
    /** For 'widens': the e-mails of the members who would see every line. */
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
  const scoped = new Set(memberships.filter(isScoped).map((membership) => membership.member_id));
  return new Map(members.map((member) => [member.id, { email: member.email, role: member.role, scoped: scoped.has(member.id) }]));
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
  return result;
}

/** Refuses a change by someone other than an owner to what an owner may see or do; `message` says which. */
export function refuseUnlessOwner(change: AccessChange, message: string): void {
  if (change.by !== 'owner') throw new AccessChangeError('owner-only', message);
}
