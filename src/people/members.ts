import { sql } from 'kysely';
import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import type { AccessScope } from '../query/access-scope.js';
import { newId } from '../lib/ids.js';
import { revokeKeysMadeBy } from '../accounts/accounts.js';
import type { Role } from '../http/permissions.js';
import type { Member } from '../wire/types.js';
import { type AccessChange, guardedChange, refuseUnlessOwner } from './access-guard.js';
import { groupEntries, storedScope } from './group-scope.js';

/** Who a member session speaks for, read afresh on every request. */
export interface MemberAccess {
  id: string;
  account: string;
  email: string;
  role: Role;
  scope: AccessScope;
}

export class MemberError extends Error {
  constructor(
    readonly kind: 'duplicate' | 'last-owner' | 'unknown-group',
    message: string,
  ) {
    super(message);
  }
}

/** E-mail addresses are compared without case: one member per address and organisation. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

const isUniqueViolation = (error: unknown) =>
  error instanceof Error && (/UNIQUE/.test(error.message) || (error as { code?: string }).code === '23505');

/**
 * The people of each organisation: members with a role and groups, kept in the configuration
 * database so that every node reads the same. Nothing here is cached: a change of role or groups
 * holds from the next request, on every node.
 */
export class Members {
  constructor(private readonly db: ConfigKysely) {}

  async list(account: string): Promise<Member[]> {
    const rows = await this.db.selectFrom('members').selectAll().where('account', '=', account).orderBy('email').execute();
    const groups = await this.groupsOf(rows.map((row) => row.id));
    return rows.map((row) => summary(row, groups.get(row.id) ?? []));
  }

  async get(account: string, email: string): Promise<Member | undefined> {
    const row = await this.row(account, email);
    return row && summary(row, (await this.groupsOf([row.id])).get(row.id) ?? []);
  }

  /** The member row itself (with its id and password hash), for sign-in and links. */
  async row(account: string, email: string): Promise<ConfigTables['members'] | undefined> {
    return this.db.selectFrom('members').selectAll().where('account', '=', account).where('email', '=', normaliseEmail(email)).executeTakeFirst();
  }

  async byId(id: string): Promise<ConfigTables['members'] | undefined> {
    return this.db.selectFrom('members').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Every member with this address, in every organisation of active standing, oldest first. */
  async withEmail(email: string): Promise<Array<ConfigTables['members']>> {
    return this.db
      .selectFrom('members as m')
      .innerJoin('accounts as a', 'a.account', 'm.account')
      .selectAll('m')
      .where('m.email', '=', normaliseEmail(email))
      .where('a.active', '=', 1)
      .orderBy('m.created_at')
      .orderBy('m.id')
      .execute();
  }

  /** Adds a member; an asker limited by a scope may add only someone whose access lies inside it (access-guard.ts). */
  async create(account: string, input: { email: string; role: Role; groups: string[] }, access: AccessChange = { by: 'owner' }, now = Date.now()): Promise<ConfigTables['members']> {
    const id = newId();
    try {
      await this.db.transaction().execute((trx) =>
        guardedChange(trx, account, access, async () => {
          await trx.insertInto('members').values({ id, account, email: normaliseEmail(input.email), role: input.role, password_hash: null, signed_in_at: null, created_at: now, modified_at: now }).execute();
          await setGroups(trx, account, id, input.groups);
        }),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new MemberError('duplicate', `A member with the e-mail "${normaliseEmail(input.email)}" already exists.`);
      throw error;
    }
    return (await this.byId(id))!;
  }

  /**
   * Changes a member's role and (when given) groups. Refuses to leave the organisation without an
   * owner, or without an owner in no scoped group; refuses anyone but an owner a change to an
   * owner; and refuses to leave a scoped member in no scoped group unless `access.widen`
   * (access-guard.ts), all decided in the transaction that makes the change. Says whether the
   * role went down, for the caller to end the member's sessions.
   */
  async update(account: string, email: string, change: { role?: Role; groups?: string[] }, access: AccessChange, now = Date.now()): Promise<{ member: Member; demoted: boolean } | undefined> {
    const result = await this.db.transaction().execute((trx) =>
      guardedChange(trx, account, access, async () => {
        const row = await trx.selectFrom('members').selectAll().where('account', '=', account).where('email', '=', normaliseEmail(email)).executeTakeFirst();
        if (!row) return undefined;
        const role = change.role ?? row.role;
        const current = (await trx.selectFrom('group_members').select('group_id').where('member_id', '=', row.id).execute()).map((found) => found.group_id);
        const regrouped = change.groups !== undefined && !sameSet(current, change.groups);
        // A client may send back the owner it read (same role, same groups): only a change is refused.
        if (row.role === 'owner' && (role !== row.role || regrouped)) refuseUnlessOwner(access, "Only an owner may change an owner's role or groups.");
        if (row.role === 'owner' && role !== 'owner') await refuseLastOwner(trx, account);
        await trx.updateTable('members').set({ role, modified_at: now }).where('id', '=', row.id).execute();
        if (change.groups) await setGroups(trx, account, row.id, change.groups);
        return { id: row.id, demoted: rank(role) < rank(row.role) };
      }),
    );
    if (!result) return undefined;
    return { member: (await this.get(account, email))!, demoted: result.demoted };
  }

  /**
   * Removes a member with their group memberships, one-time links, sessions and the service keys
   * they made; the last owner stays, and so does the last owner in no scoped group; an asker
   * limited by a scope removes only members inside it (access-guard.ts).
   */
  async delete(account: string, email: string, access: AccessChange = { by: 'owner' }): Promise<ConfigTables['members'] | undefined> {
    return this.db.transaction().execute((trx) =>
      guardedChange(trx, account, access, async () => {
        const row = await trx.selectFrom('members').selectAll().where('account', '=', account).where('email', '=', normaliseEmail(email)).executeTakeFirst();
        if (!row) return undefined;
        if (row.role === 'owner') await refuseLastOwner(trx, account);
        await trx.deleteFrom('group_members').where('member_id', '=', row.id).execute();
        await trx.deleteFrom('one_time_links').where('member_id', '=', row.id).execute();
        await trx.deleteFrom('sessions').where('member_id', '=', row.id).execute();
        await revokeKeysMadeBy(trx, row.id);
        await trx.deleteFrom('members').where('id', '=', row.id).execute();
        return row;
      }),
    );
  }

  /**
   * The first start's owner link: the person who opens it becomes an owner of its organisation,
   * as a new member or, when the address is already one, by promotion. Returns the member's id.
   */
  async becomeOwner(trx: ConfigKysely, account: string, email: string, passwordHash: string, now = Date.now()): Promise<string> {
    const existing = await trx.selectFrom('members').select('id').where('account', '=', account).where('email', '=', email).executeTakeFirst();
    if (existing) {
      await trx.updateTable('members').set({ role: 'owner', password_hash: passwordHash, modified_at: now }).where('id', '=', existing.id).execute();
      await trx.deleteFrom('sessions').where('member_id', '=', existing.id).execute();
      return existing.id;
    }
    const id = newId();
    await trx.insertInto('members').values({ id, account, email, role: 'owner', password_hash: passwordHash, signed_in_at: now, created_at: now, modified_at: now }).execute();
    return id;
  }

  /** Notes a sign-in (password or single sign-on): the member is active from then on. */
  async signedIn(memberId: string, now = Date.now()): Promise<void> {
    await this.db.updateTable('members').set({ signed_in_at: now }).where('id', '=', memberId).execute();
  }

  async setPassword(memberId: string, passwordHash: string, trx: ConfigKysely = this.db, now = Date.now()): Promise<void> {
    await trx.updateTable('members').set({ password_hash: passwordHash, modified_at: now }).where('id', '=', memberId).execute();
  }

  /** A member's current standing: role, and the entries of their scoped groups (null: every line). */
  async access(memberId: string): Promise<MemberAccess | undefined> {
    const row = await this.db
      .selectFrom('members as m')
      .innerJoin('accounts as a', 'a.account', 'm.account')
      .select(['m.id', 'm.account', 'm.email', 'm.role'])
      .where('m.id', '=', memberId)
      .where('a.active', '=', 1)
      .executeTakeFirst();
    if (!row) return undefined;
    const groups = await this.db
      .selectFrom('group_members as gm')
      .innerJoin('member_groups as g', 'g.id', 'gm.group_id')
      .select(['g.access_scopes', 'g.apps', 'g.hosts'])
      .where('gm.member_id', '=', memberId)
      .orderBy('g.id')
      .execute();
    const entries = groups.flatMap((group) => groupEntries(storedScope(group)));
    return { ...row, scope: entries.length ? entries : null };
  }

  private async groupsOf(memberIds: string[]): Promise<Map<string, string[]>> {
    const byMember = new Map<string, string[]>();
    if (memberIds.length === 0) return byMember;
    const rows = await this.db.selectFrom('group_members').selectAll().where('member_id', 'in', memberIds).orderBy('group_id').execute();
    for (const row of rows) byMember.set(row.member_id, [...(byMember.get(row.member_id) ?? []), row.group_id]);
    return byMember;
  }
}

const sameSet = (a: string[], b: string[]) => new Set(a).size === new Set(b).size && a.every((item) => b.includes(item));

const rank = (role: Role) => ['readonly', 'member', 'admin', 'owner'].indexOf(role);

async function refuseLastOwner(trx: ConfigKysely, account: string): Promise<void> {
  const { owners } = await trx
    .selectFrom('members')
    .select(sql<string>`count(*)`.as('owners'))
    .where('account', '=', account)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  if (Number(owners) <= 1) throw new MemberError('last-owner', 'This is the last owner of the organisation; make another member owner first.');
}

async function setGroups(trx: ConfigKysely, account: string, memberId: string, groupIds: string[]): Promise<void> {
  const unique = [...new Set(groupIds)];
  if (unique.length) {
    const found = await trx.selectFrom('member_groups').select('id').where('account', '=', account).where('id', 'in', unique).execute();
    const missing = unique.filter((id) => !found.some((row) => row.id === id));
    if (missing.length) throw new MemberError('unknown-group', `Unknown group(s): ${missing.join(', ')}`);
  }
  await trx.deleteFrom('group_members').where('member_id', '=', memberId).execute();
  for (const groupId of unique) await trx.insertInto('group_members').values({ group_id: groupId, member_id: memberId }).execute();
}

function summary(row: ConfigTables['members'], groups: string[]): Member {
  const signedIn = row.signed_in_at === null ? null : Number(row.signed_in_at);
  return { email: row.email, role: row.role, groups, active: row.password_hash !== null || signedIn !== null, lastSignIn: signedIn, created: Number(row.created_at), modified: Number(row.modified_at) };
}
