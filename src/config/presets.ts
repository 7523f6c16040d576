import type { Channel } from './channels.js';
import type { ConfigDb } from './database.js';
import { newId } from './ids.js';

export interface Preset {
  presetid: string;
  account: string;
  name: string;
  channels: Channel[];
  _created: string;
  _modified: string;
}

interface PresetRow {
  presetid: string;
  account: string;
  name: string;
  channels: string;
  created_at: string;
  modified_at: string;
}

const fromRow = (row: PresetRow): Preset => ({
  presetid: row.presetid,
  account: row.account,
  name: row.name,
  channels: JSON.parse(row.channels),
  _created: row.created_at,
  _modified: row.modified_at,
});

/** Preset alerts: named sets of channels that views attach by presetid. */
export class Presets {
  /** `changed` hears of every write, so alerting can follow configuration at once. */
  constructor(
    private readonly db: ConfigDb,
    private readonly changed: (account: string) => void = () => {},
  ) {}

  list(account: string): Preset[] {
    return this.db.prepare<[string], PresetRow>(`SELECT * FROM presets WHERE account = ? ORDER BY created_at, presetid`).all(account).map(fromRow);
  }

  get(account: string, presetid: string): Preset | undefined {
    const row = this.db.prepare<[string, string], PresetRow>(`SELECT * FROM presets WHERE account = ? AND presetid = ?`).get(account, presetid);
    return row && fromRow(row);
  }

  create(account: string, name: string, channels: Channel[]): Preset {
    const now = new Date().toISOString();
    const presetid = newId();
    this.db
      .prepare(`INSERT INTO presets (presetid, account, name, channels, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(presetid, account, name, JSON.stringify(channels), now, now);
    this.changed(account);
    return { presetid, account, name, channels, _created: now, _modified: now };
  }

  /** Replaces the whole preset; returns undefined when it does not exist in this account. */
  replace(account: string, presetid: string, name: string, channels: Channel[]): Preset | undefined {
    const changed = this.db
      .prepare(`UPDATE presets SET name = ?, channels = ?, modified_at = ? WHERE account = ? AND presetid = ?`)
      .run(name, JSON.stringify(channels), new Date().toISOString(), account, presetid);
    if (!changed.changes) return undefined;
    this.changed(account);
    return this.get(account, presetid);
  }

  /** Deletes a preset; views that used it lose the attachment (ON DELETE SET NULL). */
  delete(account: string, presetid: string): boolean {
    const deleted = this.db.prepare(`DELETE FROM presets WHERE account = ? AND presetid = ?`).run(account, presetid).changes > 0;
    if (deleted) this.changed(account);
    return deleted;
  }
}
