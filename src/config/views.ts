import type { Channel } from './channels.js';
import type { ConfigDb } from './database.js';
import { newId } from './ids.js';

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
  _created: string;
  _modified: string;
}

export interface ViewInput {
  name: string;
  filters: ViewFilters;
  categoryIds: string[];
  presetid: string | null;
  channels: Channel[];
}

interface ViewRow {
  viewid: string;
  account: string;
  name: string;
  filters: string;
  category_ids: string;
  presetid: string | null;
  channels: string;
  created_at: string;
  modified_at: string;
}

const fromRow = (row: ViewRow): View => ({
  viewid: row.viewid,
  account: row.account,
  name: row.name,
  filters: JSON.parse(row.filters),
  categoryIds: JSON.parse(row.category_ids),
  presetid: row.presetid,
  channels: JSON.parse(row.channels),
  _created: row.created_at,
  _modified: row.modified_at,
});

/** Views, stored whole: a PUT replaces everything, including the view's own alert channels. */
export class Views {
  /** `changed` hears of every write, so alerting can follow configuration at once. */
  constructor(
    private readonly db: ConfigDb,
    private readonly changed: (account: string) => void = () => {},
  ) {}

  /** Accounts that have at least one view. */
  accounts(): string[] {
    return this.db.prepare<[], { account: string }>(`SELECT DISTINCT account FROM views`).all().map((row) => row.account);
  }

  list(account: string): View[] {
    return this.db.prepare<[string], ViewRow>(`SELECT * FROM views WHERE account = ? ORDER BY created_at, viewid`).all(account).map(fromRow);
  }

  get(account: string, viewid: string): View | undefined {
    const row = this.db.prepare<[string, string], ViewRow>(`SELECT * FROM views WHERE account = ? AND viewid = ?`).get(account, viewid);
    return row && fromRow(row);
  }

  create(account: string, input: ViewInput): View {
    const viewid = newId();
    const now = new Date().toISOString();
    this.db
      .prepare(
        `INSERT INTO views (viewid, account, name, filters, category_ids, presetid, channels, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(viewid, account, input.name, JSON.stringify(input.filters), JSON.stringify(input.categoryIds), input.presetid, JSON.stringify(input.channels), now, now);
    this.changed(account);
    return this.get(account, viewid)!;
  }

  replace(account: string, viewid: string, input: ViewInput): View | undefined {
    const changed = this.db
      .prepare(
        `UPDATE views SET name = ?, filters = ?, category_ids = ?, presetid = ?, channels = ?, modified_at = ?
          WHERE account = ? AND viewid = ?`,
      )
      .run(input.name, JSON.stringify(input.filters), JSON.stringify(input.categoryIds), input.presetid, JSON.stringify(input.channels), new Date().toISOString(), account, viewid);
    if (!changed.changes) return undefined;
    this.changed(account);
    return this.get(account, viewid);
  }

  /** Deletes a view together with its view-specific alerts, which are stored with it. */
  delete(account: string, viewid: string): boolean {
    const deleted = this.db.prepare(`DELETE FROM views WHERE account = ? AND viewid = ?`).run(account, viewid).changes > 0;
    if (deleted) this.changed(account);
    return deleted;
  }
}
