import { Listeners } from '../lib/listeners.js';
import type { Channel } from './channels.js';
import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import { newId } from '../lib/ids.js';

export interface Preset {
  presetid: string;
  account: string;
  name: string;
  channels: Channel[];
  _created: string;
  _modified: string;
}

const fromRow = (row: ConfigTables['presets']): Preset => ({
  presetid: row.presetid,
  account: row.account,
  name: row.name,
  channels: JSON.parse(row.channels),
  _created: row.created_at,
  _modified: row.modified_at,
});

/** Preset alerts: named sets of channels that views attach by presetid. */
export class Presets {
  /** Hears of every write, with its organisation, so alerting can follow configuration at once. */
  readonly changes = new Listeners<string>();

  constructor(private readonly db: ConfigKysely) {}

  async list(account: string): Promise<Preset[]> {
    return (await this.db.selectFrom('presets').selectAll().where('account', '=', account).orderBy('created_at').orderBy('presetid').execute()).map(fromRow);
  }

  /** Every preset of every organisation, for the alert rules. */
  async all(): Promise<Preset[]> {
    return (await this.db.selectFrom('presets').selectAll().execute()).map(fromRow);
  }

  async get(account: string, presetid: string): Promise<Preset | undefined> {
    const row = await this.db.selectFrom('presets').selectAll().where('account', '=', account).where('presetid', '=', presetid).executeTakeFirst();
    return row && fromRow(row);
  }

  async create(account: string, name: string, channels: Channel[]): Promise<Preset> {
    const now = new Date().toISOString();
    const presetid = newId();
    await this.db
      .insertInto('presets')
      .values({ presetid, account, name, channels: JSON.stringify(channels), created_at: now, modified_at: now })
      .execute();
    await this.changes.emit(account);
    return { presetid, account, name, channels, _created: now, _modified: now };
  }

  /** Replaces the whole preset; returns undefined when it does not exist in this account. */
  async replace(account: string, presetid: string, name: string, channels: Channel[]): Promise<Preset | undefined> {
    const changed = await this.db
      .updateTable('presets')
      .set({ name, channels: JSON.stringify(channels), modified_at: new Date().toISOString() })
      .where('account', '=', account)
      .where('presetid', '=', presetid)
      .executeTakeFirst();
    if (!Number(changed.numUpdatedRows)) return undefined;
    await this.changes.emit(account);
    return this.get(account, presetid);
  }

  /** Deletes a preset; views that used it lose the attachment (ON DELETE SET NULL). */
  async delete(account: string, presetid: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('presets').where('account', '=', account).where('presetid', '=', presetid).executeTakeFirst();
    const any = Number(deleted.numDeletedRows) > 0;
    if (any) await this.changes.emit(account);
    return any;
  }
}
