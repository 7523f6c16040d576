import { Listeners } from '../lib/listeners.js';
import type { AccessScope } from '../query/access-scope.js';
import type { Channel } from './channels.js';
import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import { newId } from '../lib/ids.js';

/** A view's saved search: the filters and query it applies. */
export interface ViewFilters {
  query?: string;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
  description?: string;
}

export interface View {
  viewid: string;
  account: string;
  name: string;
  filters: ViewFilters;
  categoryIds: string[];
  presetid: string | null;
  /** The view's own channels (view-specific alerts); a preset's channels live on the preset. */
  channels: Channel[];
  /**
   * The access scope of the member who last saved it, kept current as their groups change
   * (people/scope-follow.ts): its alerts count and send only lines inside it.
   */
  accessScope: AccessScope;
  /** That member's id; null when a service key saved it. */
  savedBy: string | null;
  _created: string;
  _modified: string;
}

export interface ViewInput {
  name: string;
  filters: ViewFilters;
  categoryIds: string[];
  presetid: string | null;
  channels: Channel[];
  accessScope: AccessScope;
  savedBy: string | null;
}

const fromRow = (row: ConfigTables['views']): View => ({
  viewid: row.viewid,
  account: row.account,
  name: row.name,
  filters: JSON.parse(row.filters),
  categoryIds: JSON.parse(row.category_ids),
  presetid: row.presetid,
  channels: JSON.parse(row.channels),
  accessScope: row.access_scope === null ? null : JSON.parse(row.access_scope),
  savedBy: row.saved_by,
  _created: row.created_at,
  _modified: row.modified_at,
});

/** Views, stored whole: a PUT replaces everything, including the view's own alert channels. */
export class Views {
  /** Hears of every write, with its organisation, so alerting can follow configuration at once. */
  readonly changes = new Listeners<string>();

  constructor(private readonly db: ConfigKysely) {}

  /** Accounts that have at least one view. */
  async accounts(): Promise<string[]> {
    return (await this.db.selectFrom('views').select('account').distinct().execute()).map((row) => row.account);
  }

  async list(account: string): Promise<View[]> {
    return (await this.db.selectFrom('views').selectAll().where('account', '=', account).orderBy('created_at').orderBy('viewid').execute()).map(fromRow);
  }

  /** Every view of every organisation, for the alert rules. */
  async all(): Promise<View[]> {
    return (await this.db.selectFrom('views').selectAll().orderBy('account').orderBy('created_at').orderBy('viewid').execute()).map(fromRow);
  }

  async get(account: string, viewid: string): Promise<View | undefined> {
    const row = await this.db.selectFrom('views').selectAll().where('account', '=', account).where('viewid', '=', viewid).executeTakeFirst();
    return row && fromRow(row);
  }

  async create(account: string, input: ViewInput): Promise<View> {
    const viewid = newId();
    const now = new Date().toISOString();
    await this.db
      .insertInto('views')
      .values({ viewid, account, ...columns(input), created_at: now, modified_at: now })
      .execute();
    await this.changes.emit(account);
    return (await this.get(account, viewid))!;
  }

  async replace(account: string, viewid: string, input: ViewInput): Promise<View | undefined> {
    const changed = await this.db
      .updateTable('views')
      .set({ ...columns(input), modified_at: new Date().toISOString() })
      .where('account', '=', account)
      .where('viewid', '=', viewid)
      .executeTakeFirst();
    if (!Number(changed.numUpdatedRows)) return undefined;
    await this.changes.emit(account);
    return this.get(account, viewid);
  }

  /**
   * Gives the views a member saved their current access scope (after a change of their groups or
   * of a group's scope), so those views' alerts follow what the member may see now; the caller
   * then tells the alert rules (peopleChanged).
   */
  async followScope(memberId: string, scope: AccessScope): Promise<void> {
    const stored = scope === null ? null : JSON.stringify(scope);
    const saved = await this.db.selectFrom('views').select(['account', 'access_scope']).where('saved_by', '=', memberId).execute();
    const stale = saved.filter((view) => view.access_scope !== stored);
    if (stale.length === 0) return;
    await this.db.updateTable('views').set({ access_scope: stored }).where('saved_by', '=', memberId).execute();
  }

  /**
   * The people of an organisation changed (a scope, a removal): the alert rules, which bound each
   * channel by its setter's scope, are told, as on any write of views.
   */
  async peopleChanged(account: string): Promise<void> {
    await this.changes.emit(account);
  }

  /** Deletes a view together with its view-specific alerts, which are stored with it. */
  async delete(account: string, viewid: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('views').where('account', '=', account).where('viewid', '=', viewid).executeTakeFirst();
    const any = Number(deleted.numDeletedRows) > 0;
    if (any) await this.changes.emit(account);
    return any;
  }
}

const columns = (input: ViewInput) => ({
  name: input.name,
  filters: JSON.stringify(input.filters),
  category_ids: JSON.stringify(input.categoryIds),
  presetid: input.presetid,
  channels: JSON.stringify(input.channels),
  access_scope: input.accessScope === null ? null : JSON.stringify(input.accessScope),
  saved_by: input.savedBy,
});
