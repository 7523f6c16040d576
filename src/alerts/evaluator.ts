import type { ConfigDb } from '../config/database.js';
import { sharedExportRecord } from '../store/export-record.js';
import type { StoredLine } from '../store/types.js';
import type { AlertEvent, FireKind } from '../notify/alert-event.js';
import { firesAtWindowEnd, firesImmediately, isActiveAt } from './decision.js';
import { windowStart } from './intervals.js';
import type { AlertRules, ChannelRule, ViewRule } from './rules.js';

/** Matched lines kept per window for the notification; the count covers all of them. */
export const MAX_SAMPLES = 20;
export type { AlertEvent, FireKind };

interface WindowState {
  key: string;
  account: string;
  viewid: string;
  alertid: string;
  windowStart: number;
  count: number;
  firedImmediate: boolean;
  samples: Array<Record<string, unknown>>;
}

type PendingFire = Omit<AlertEvent, 'fireId'>;

/** Hears of the evaluator's work, for the metrics; must not throw. */
export interface AlertActivity {
  /** Stored lines were checked against an organisation's alerts, or an alert window was closed. */
  evaluated(trigger: 'lines' | 'window'): void;
  /** An alert fired, and its fire is recorded. */
  fired(kind: FireKind): void;
}

const UNOBSERVED: AlertActivity = { evaluated() {}, fired() {} };

/**
 * Counts each view's matching lines per channel in tumbling `triggerinterval` windows and decides
 * when alerts fire (compat reference §6.2):
 * - presence + immediate: once per window, when the count reaches `triggerlimit`;
 * - presence + terminal: when the window ends, if the count reached the limit and immediate did not
 *   fire in it;
 * - absence: when the window ends, if the count is under the limit, while the view is active.
 *
 * Window state, view activity and the record of fires are written to SQLite in one transaction with
 * the deliveries they cause, so after a crash a window is neither lost nor fired twice (alert_fires
 * is unique per channel and window). Windows that ended while the server was down are closed once
 * at the next tick; the next window starts from the current time.
 */
export class AlertEvaluator {
  private readonly states = new Map<string, WindowState>();
  private readonly lastLineAt = new Map<string, number>();

  constructor(
    private readonly db: ConfigDb,
    private readonly rules: AlertRules,
    /** Called inside the transaction that records a fire; enqueues its deliveries. */
    private readonly onFire: (event: AlertEvent) => void,
    private readonly now: () => number = Date.now,
    private readonly activity: AlertActivity = UNOBSERVED,
  ) {
    for (const row of db.prepare<[], { viewid: string; alertid: string; account: string; window_start: number; count: number; fired_immediate: number; samples: string }>(`SELECT * FROM alert_windows`).all()) {
      this.states.set(`${row.viewid}:${row.alertid}`, {
        key: `${row.viewid}:${row.alertid}`,
        account: row.account,
        viewid: row.viewid,
        alertid: row.alertid,
        windowStart: row.window_start,
        count: row.count,
        firedImmediate: row.fired_immediate === 1,
        samples: JSON.parse(row.samples),
      });
    }
    for (const row of db.prepare<[], { viewid: string; last_line_at: number }>(`SELECT viewid, last_line_at FROM view_activity`).all()) {
      this.lastLineAt.set(row.viewid, row.last_line_at);
    }
  }

  /** Counts newly stored lines of an account against its views; fires immediate alerts. */
  observe(account: string, rows: StoredLine[]): void {
    const rules = this.rules.forAccount(account);
    if (rules.length === 0) return;
    this.activity.evaluated('lines');
    const now = this.now();
    const changed: WindowState[] = [];
    const fires: PendingFire[] = [];
    const activeViews: ViewRule[] = [];
    for (const rule of rules) {
      const matched = rows.filter(rule.matches);
      if (matched.length === 0) continue;
      this.lastLineAt.set(rule.viewid, now);
      activeViews.push(rule);
      for (const channelRule of rule.channels) {
        const state = this.current(rule, channelRule, now, fires);
        state.count += matched.length;
        for (const row of matched.slice(0, MAX_SAMPLES - state.samples.length)) state.samples.push(sharedExportRecord(row));
        const { channel } = channelRule;
        if (firesImmediately(channel, state.count, state.firedImmediate)) {
          state.firedImmediate = true;
          fires.push(this.event(rule, channelRule, state, 'immediate', now));
        }
        changed.push(state);
      }
    }
    this.persist(changed, activeViews, fires, now);
  }

  /** Closes every window that has ended, and starts absence windows for active views. */
  tick(): void {
    const now = this.now();
    const changed: WindowState[] = [];
    const fires: PendingFire[] = [];
    const live = new Set<string>();
    for (const rule of this.rules.all()) {
      for (const channelRule of rule.channels) {
        live.add(channelRule.key);
        const state = this.states.get(channelRule.key);
        const ended = state && state.windowStart + channelRule.intervalMs <= now;
        const absenceToWatch = !state && channelRule.channel.operator === 'absence' && this.isActive(rule.viewid, now);
        if (ended || absenceToWatch) changed.push(this.current(rule, channelRule, now, fires));
      }
    }
    const forgotten = [...this.states.values()].filter((state) => !live.has(state.key));
    for (const state of forgotten) this.states.delete(state.key);
    if (changed.length || fires.length || forgotten.length) this.persist(changed, [], fires, now, forgotten);
  }

  private isActive(viewid: string, at: number): boolean {
    return isActiveAt(this.lastLineAt.get(viewid), at);
  }

  /** The channel's state for the window containing `now`, closing an ended window first. */
  private current(rule: ViewRule, channelRule: ChannelRule, now: number, fires: PendingFire[]): WindowState {
    const existing = this.states.get(channelRule.key);
    if (existing && existing.windowStart + channelRule.intervalMs > now) return existing;
    if (existing) {
      const fire = this.close(rule, channelRule, existing);
      if (fire) fires.push(fire);
    }
    const fresh: WindowState = {
      key: channelRule.key,
      account: rule.account,
      viewid: rule.viewid,
      alertid: channelRule.channel.alertid,
      windowStart: windowStart(now, channelRule.intervalMs),
      count: 0,
      firedImmediate: false,
      samples: [],
    };
    this.states.set(channelRule.key, fresh);
    return fresh;
  }

  private close(rule: ViewRule, channelRule: ChannelRule, state: WindowState): PendingFire | null {
    const { channel } = channelRule;
    const end = state.windowStart + channelRule.intervalMs;
    this.activity.evaluated('window');
    const kind = firesAtWindowEnd(channel, state.count, state.firedImmediate, this.isActive(rule.viewid, end));
    return kind ? this.event(rule, channelRule, state, kind, end) : null;
  }

  private event(rule: ViewRule, channelRule: ChannelRule, state: WindowState, kind: FireKind, at: number): PendingFire {
    return {
      account: rule.account,
      viewid: rule.viewid,
      viewName: rule.name,
      query: rule.query,
      channel: channelRule.channel,
      presetid: channelRule.presetid,
      kind,
      windowStart: state.windowStart,
      windowEnd: state.windowStart + channelRule.intervalMs,
      matches: state.count,
      samples: [...state.samples],
      firedAt: Math.max(at, this.now()),
    };
  }

  private persist(changed: WindowState[], activeViews: ViewRule[], fires: PendingFire[], now: number, forgotten: WindowState[] = []): void {
    const saveWindow = this.db.prepare(
      `INSERT INTO alert_windows (viewid, alertid, account, window_start, count, fired_immediate, samples) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (viewid, alertid) DO UPDATE SET window_start = excluded.window_start, count = excluded.count,
         fired_immediate = excluded.fired_immediate, samples = excluded.samples`,
    );
    const saveActivity = this.db.prepare(
      `INSERT INTO view_activity (viewid, account, last_line_at) VALUES (?, ?, ?)
       ON CONFLICT (viewid) DO UPDATE SET last_line_at = excluded.last_line_at`,
    );
    const recordFire = this.db.prepare(
      `INSERT OR IGNORE INTO alert_fires (account, viewid, alertid, window_start, kind, matches, fired_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const forget = this.db.prepare(`DELETE FROM alert_windows WHERE viewid = ? AND alertid = ?`);
    const fired: FireKind[] = [];
    this.db.transaction(() => {
      for (const state of new Set(changed)) {
        saveWindow.run(state.viewid, state.alertid, state.account, state.windowStart, state.count, state.firedImmediate ? 1 : 0, JSON.stringify(state.samples));
      }
      for (const rule of activeViews) saveActivity.run(rule.viewid, rule.account, now);
      for (const state of forgotten) forget.run(state.viewid, state.alertid);
      for (const fire of fires) {
        const recorded = recordFire.run(fire.account, fire.viewid, fire.channel.alertid, fire.windowStart, fire.kind, fire.matches, fire.firedAt);
        // Already recorded: this window fired before a crash, and its deliveries are queued.
        if (recorded.changes === 1) {
          this.onFire({ ...fire, fireId: Number(recorded.lastInsertRowid) });
          fired.push(fire.kind);
        }
      }
    })();
    for (const kind of fired) this.activity.fired(kind);
  }
}
