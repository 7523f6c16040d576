import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import { newId } from '../lib/ids.js';
import type { Group } from '../wire/types.js';
import { type AccessChange, guardedChange, refuseUnlessOwner } from './access-guard.js';
import { groupEntries, storedScope } from './group-scope.js';

/** What a client sets of a group: its name, its searches (one or a list), and its exact lists of app and host names. */
export interface GroupInput {
  name: string;
  access_scopes: unknown;
  apps?: string[];
  hosts?: string[];
}

/**
 * Groups of members, each with an access scope: searches in the viewer's language, and exact lists
 * of app and host names, that limit what its members see (src/query/access-scope.ts). Kept in the
 * configuration database, read afresh on every request, so a change holds from the next one on
 * every node.
 */
export class Groups {
  constructor(private readonly db: ConfigKysely) {}

  async list(account: string): Promise<Group[]> {
    const rows = await this.db.selectFrom('member_groups').selectAll().where('account', '=', account).orderBy('created_at').orderBy('id').execute();
    return this.present(rows);
  }

  async get(account: string, id: string): Promise<Group | undefined> {
    const row = await this.db.selectFrom('member_groups').selectAll().where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return row && (await this.present([row]))[0];
  }

  /** Ids of this organisation's groups named or numbered by `refs` (a client may give either); unknown refs are returned apart. */
  async resolve(account: string, refs: string[]): Promise<{ ids: string[]; unknown: string[] }> {
    const rows = await this.db.selectFrom('member_groups').select(['id', 'name']).where('account', '=', account).execute();
    const ids: string[] = [];
    const unknown: string[] = [];
    for (const ref of refs) {
      const row = rows.find((group) => group.id === ref) ?? rows.find((group) => group.name === ref);
      if (row) ids.push(row.id);
      else unknown.push(ref);
    }
    return { ids, unknown };
  }

  async create(account: string, input: GroupInput, now = Date.now()): Promise<Group> {
    const id = newId();
    await this.db
      .insertInto('member_groups')
      .values({ id, account, name: input.name, access_scopes: JSON.stringify(input.access_scopes ?? ''), apps: JSON.stringify(input.apps ?? []), hosts: JSON.stringify(input.hosts ?? []), created_at: now, modified_at: now })
      .execute();
    return (await this.get(account, id))!;
  }

  /**
   * Changes what `change` names. A change of scope (searches or lists) of a group an owner is in is
   * an owner's to make; one that leaves a member in no scoped group needs `access.widen`; none may
   * leave the organisation without an owner in no scoped group (access-guard.ts).
   */
  async update(account: string, id: string, change: Partial<GroupInput>, access: AccessChange, now = Date.now()): Promise<Group | undefined> {
    const set: Partial<ConfigTables['member_groups']> = { modified_at: now };
    if (change.name !== undefined) set.name = change.name;
    if (change.access_scopes !== undefined) set.access_scopes = JSON.stringify(change.access_scopes);
    if (change.apps !== undefined) set.apps = JSON.stringify(change.apps);
    if (change.hosts !== undefined) set.hosts = JSON.stringify(change.hosts);
    const updated = await this.db.transaction().execute((trx) =>
      guardedChange(trx, account, access, async (before) => {
        const row = await trx.selectFrom('member_groups').selectAll().where('account', '=', account).where('id', '=', id).executeTakeFirst();
        if (!row) return false;
        // What the members see, not how the client spelt it (one search, or a list of one).
        const rescoped = JSON.stringify(groupEntries(storedScope(row))) !== JSON.stringify(groupEntries(storedScope({ ...row, ...set })));
        if (rescoped && (await this.hasOwner(trx, id, before))) refuseUnlessOwner(access, 'Only an owner may change the scope of a group an owner is in.');
        await trx.updateTable('member_groups').set(set).where('id', '=', id).execute();
        return true;
      }),
    );
    return updated ? this.get(account, id) : undefined;
  }

  /** Deletes a group; as a change of scope, it is an owner's to make when an owner is in it, and must not widen access unasked. */
  async delete(account: string, id: string, access: AccessChange): Promise<boolean> {
    return this.db.transaction().execute((trx) =>
      guardedChange(trx, account, access, async (before) => {
        const found = await trx.selectFrom('member_groups').select('id').where('account', '=', account).where('id', '=', id).executeTakeFirst();
        if (!found) return false;
        if (await this.hasOwner(trx, id, before)) refuseUnlessOwner(access, 'Only an owner may delete a group an owner is in.');
        await trx.deleteFrom('group_members').where('group_id', '=', id).execute();
        await trx.deleteFrom('member_groups').where('id', '=', id).execute();
        return true;
      }),
    );
  }

  private async hasOwner(trx: ConfigKysely, groupId: string, people: Map<string, { role: string }>): Promise<boolean> {
    const members = await trx.selectFrom('group_members').select('member_id').where('group_id', '=', groupId).execute();
    return members.some((member) => people.get(member.member_id)?.role === 'owner');
  }

  private async present(rows: Array<ConfigTables['member_groups']>): Promise<Group[]> {
    if (rows.length === 0) return [];
    const memberships = await this.db
      .selectFrom('group_members as gm')
      .innerJoin('members as m', 'm.id', 'gm.member_id')
      .select(['gm.group_id', 'm.email'])
      .where('gm.group_id', 'in', rows.map((row) => row.id))
      .orderBy('m.email')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      groupId: row.id,
      name: row.name,
      ...storedScope(row),
      members: memberships.filter((membership) => membership.group_id === row.id).map((membership) => membership.email),
      created: Number(row.created_at),
      modified: Number(row.modified_at),
    }));
  }
}
