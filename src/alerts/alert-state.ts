import { sql } from 'kysely';
import { type ConfigKysely, onPostgres } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';

/** One channel's window as stored: the state every node adds its lines to. */
export interface AlertWindow {
  viewid: string;
  alertid: string;
  account: string;
  windowStart: number;
  count: number;
  firedImmediate: boolean;
  samples: Array<Record<string, unknown>>;
}

/** An auto-resolving channel's open incident: it fired, and is closed once a window of its resolve interval is quiet. */
export interface AlertIncident {
  viewid: string;
  alertid: string;
  account: string;
  openedAt: number;
  /** The current resolve window: it starts when the channel fired, and each next one where the last ended. */
  windowStart: number;
  count: number;
}

export interface FireRecord {
  account: string;
  viewid: string;
  alertid: string;
  windowStart: number;
  kind: string;
  matches: number;
  firedAt: number;
}

/**
 * What the evaluator may do inside one transaction, with the windows it named locked: read and
 * write them, read and note view activity, record fires. Fires are unique per channel and window,
 * so a window never fires twice, whichever node closes it and however often.
 */
export interface AlertTransaction {
  readonly trx: ConfigKysely;
  window(viewid: string, alertid: string): Promise<AlertWindow | undefined>;
  saveWindow(window: AlertWindow): Promise<void>;
  forgetWindow(viewid: string, alertid: string): Promise<void>;
  lastLineAt(viewid: string): Promise<number | undefined>;
  /** Notes a matching line at `at`; activity only moves forward, whichever node reports it. */
  noteActivity(viewid: string, account: string, at: number): Promise<void>;
  /** Records a fire; its id, or null when this window's fire was already recorded. */
  recordFire(fire: FireRecord): Promise<number | null>;
  incident(viewid: string, alertid: string): Promise<AlertIncident | undefined>;
  /** Opens an incident unless one is open for the channel (a repeat fire keeps the open one). */
  openIncident(incident: AlertIncident): Promise<void>;
  saveIncident(incident: AlertIncident): Promise<void>;
  closeIncident(viewid: string, alertid: string): Promise<void>;
}

/**
 * Alert windows, view activity and fires, in the configuration database that every node shares.
 * Counts from every node go into the same rows, and a transaction holds a lock per channel (on
 * PostgreSQL an advisory lock, so even a window not yet written is covered; SQLite writes one
 * transaction at a time), so concurrent nodes add up rather than overwrite, and one decides.
 */
export class AlertState {
  constructor(private readonly db: ConfigKysely) {}

  /** Every stored window, unlocked: for finding the ones that have ended. */
  async windows(): Promise<AlertWindow[]> {
    return (await this.db.selectFrom('alert_windows').selectAll().execute()).map(fromRow);
  }

  /** Every open incident, unlocked: for finding the ones whose resolve window has ended. */
  async incidents(): Promise<AlertIncident[]> {
    return (await this.db.selectFrom('alert_incidents').selectAll().execute()).map(incidentFromRow);
  }

  /** Every view's newest matching line, unlocked. */
  async activity(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('view_activity').select(['viewid', 'last_line_at']).execute();
    return new Map(rows.map((row) => [row.viewid, row.last_line_at]));
  }

  /** Runs `work` in one transaction, holding the locks of these channels (by `${viewid}:${alertid}`). */
  async locked<T>(keys: string[], work: (tx: AlertTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      if (onPostgres(trx)) {
        // Sorted, so two nodes locking overlapping sets cannot deadlock.
        for (const key of [...new Set(keys)].sort()) await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`alert:${key}`}, 0))`.execute(trx);
      }
      return work(transaction(trx));
    });
  }
}

function transaction(trx: ConfigKysely): AlertTransaction {
  return {
    trx,
    async window(viewid, alertid) {
      const row = await trx.selectFrom('alert_windows').selectAll().where('viewid', '=', viewid).where('alertid', '=', alertid).executeTakeFirst();
      return row && fromRow(row);
    },
    async saveWindow(window) {
      const values = {
        viewid: window.viewid,
        alertid: window.alertid,
        account: window.account,
        window_start: window.windowStart,
        count: window.count,
        fired_immediate: window.firedImmediate ? 1 : 0,
        samples: JSON.stringify(window.samples),
      };
      await trx
        .insertInto('alert_windows')
        .values(values)
        .onConflict((conflict) =>
          conflict.columns(['viewid', 'alertid']).doUpdateSet({
            window_start: values.window_start,
            count: values.count,
            fired_immediate: values.fired_immediate,
            samples: values.samples,
          }),
        )
        .execute();
    },
    async forgetWindow(viewid, alertid) {
      await trx.deleteFrom('alert_windows').where('viewid', '=', viewid).where('alertid', '=', alertid).execute();
    },
    async lastLineAt(viewid) {
      return (await trx.selectFrom('view_activity').select('last_line_at').where('viewid', '=', viewid).executeTakeFirst())?.last_line_at;
    },
    async noteActivity(viewid, account, at) {
      await trx
        .insertInto('view_activity')
        .values({ viewid, account, last_line_at: at })
        .onConflict((conflict) =>
          conflict.column('viewid').doUpdateSet((eb) => ({
            last_line_at: sql<number>`CASE WHEN ${eb.ref('excluded.last_line_at')} > view_activity.last_line_at THEN ${eb.ref('excluded.last_line_at')} ELSE view_activity.last_line_at END`,
          })),
        )
        .execute();
    },
    async recordFire(fire) {
      const row = await trx
        .insertInto('alert_fires')
        .values({
          account: fire.account,
          viewid: fire.viewid,
          alertid: fire.alertid,
          window_start: fire.windowStart,
          kind: fire.kind,
          matches: fire.matches,
          fired_at: fire.firedAt,
        })
        .onConflict((conflict) => conflict.columns(['viewid', 'alertid', 'window_start']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? Number(row.id) : null;
    },
    async incident(viewid, alertid) {
      const row = await trx.selectFrom('alert_incidents').selectAll().where('viewid', '=', viewid).where('alertid', '=', alertid).executeTakeFirst();
      return row && incidentFromRow(row);
    },
    async openIncident(incident) {
      await trx
        .insertInto('alert_incidents')
        .values(incidentRow(incident))
        .onConflict((conflict) => conflict.columns(['viewid', 'alertid']).doNothing())
        .execute();
    },
    async saveIncident(incident) {
      await trx.updateTable('alert_incidents').set({ window_start: incident.windowStart, count: incident.count }).where('viewid', '=', incident.viewid).where('alertid', '=', incident.alertid).execute();
    },
    async closeIncident(viewid, alertid) {
      await trx.deleteFrom('alert_incidents').where('viewid', '=', viewid).where('alertid', '=', alertid).execute();
    },
  };
}

const incidentRow = (incident: AlertIncident): ConfigTables['alert_incidents'] => ({
  viewid: incident.viewid,
  alertid: incident.alertid,
  account: incident.account,
  opened_at: incident.openedAt,
  window_start: incident.windowStart,
  count: incident.count,
});

const incidentFromRow = (row: ConfigTables['alert_incidents']): AlertIncident => ({
  viewid: row.viewid,
  alertid: row.alertid,
  account: row.account,
  openedAt: Number(row.opened_at),
  windowStart: Number(row.window_start),
  count: Number(row.count),
});

const fromRow = (row: ConfigTables['alert_windows']): AlertWindow => ({
  viewid: row.viewid,
  alertid: row.alertid,
  account: row.account,
  windowStart: Number(row.window_start),
  count: Number(row.count),
  firedImmediate: Number(row.fired_immediate) === 1,
  samples: JSON.parse(row.samples),
});
