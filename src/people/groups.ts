import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import { newId } from '../lib/ids.js';
import type { Group } from '../wire/types.js';

/**
 * Groups of members, each with an access scope: searches in the viewer's language that limit what
 * its members see (src/query/access-scope.ts). Kept in the configuration database, read afresh on
 * every request, so a change holds from the next one on every node.
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

  async create(account: string, input: { name: string; access_scopes: unknown }, now = Date.now()): Promise<Group> {
    const id = newId();
    await this.db.insertInto('member_groups').values({ id, account, name: input.name, access_scopes: JSON.stringify(input.access_scopes ?? ''), created_at: now, modified_at: now }).execute();
    return (await this.get(account, id))!;
  }

  async update(account: string, id: string, change: { name?: string; access_scopes?: unknown }, now = Date.now()): Promise<Group | undefined> {
    const set: Partial<ConfigTables['member_groups']> = { modified_at: now };
    if (change.name !== undefined) set.name = change.name;
    if (change.access_scopes !== undefined) set.access_scopes = JSON.stringify(change.access_scopes);
    const result = await this.db.updateTable('member_groups').set(set).where('account', '=', account).where('id', '=', id).executeTakeFirst();
    if (!Number(result.numUpdatedRows)) return undefined;
    return this.get(account, id);
  }

  async delete(account: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const found = await trx.selectFrom('member_groups').select('id').where('account', '=', account).where('id', '=', id).executeTakeFirst();
      if (!found) return false;
      await trx.deleteFrom('group_members').where('group_id', '=', id).execute();
      await trx.deleteFrom('member_groups').where('id', '=', id).execute();
      return true;
    });
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
      access_scopes: JSON.parse(row.access_scopes),
      members: memberships.filter((membership) => membership.group_id === row.id).map((membership) => membership.email),
      created: Number(row.created_at),
      modified: Number(row.modified_at),
    }));
  }
}
