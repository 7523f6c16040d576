import type { AlertState, AlertTransaction, AlertWindow } from './alert-state.js';
import type { ConfigKysely } from '../repository/open.js';
import { sharedExportRecord } from '../store/export-record.js';
import type { StoredLine } from '../store/types.js';
import type { AlertEvent, FireKind } from '../notify/alert-event.js';
import { firesAtWindowEnd, firesImmediately, isActiveAt } from './decision.js';
import { windowStart } from './intervals.js';
import type { AlertRules, ChannelRule, ViewRule } from './rules.js';
import { resolves } from '../views/channels.js';
import { resolveFireStart, resolveIntervalMs, stepIncident } from './incidents.js';

/** Matched lines kept per window for the notification; the count covers all of them. */
export const MAX_SAMPLES = 20;
export type { AlertEvent, FireKind };

type PendingFire = Omit<AlertEvent, 'fireId'>;

/** Hears of the evaluator's work, for the metrics; must not throw. */
export interface AlertActivity {
  /** Stored lines were checked against an organisation's alerts, or an alert window was closed. */
  evaluated(trigger: 'lines' | 'window'): void;
  /** An alert fired, and its fire is recorded. */
  fired(kind: FireKind): void;
}

const UNOBSERVED: AlertActivity = { evaluated() {}, fired() {} };

const keyOf = (window: { viewid: string; alertid: string }) => `${window.viewid}:${window.alertid}`;

/**
 * Counts each view's matching lines per channel in tumbling `triggerinterval` windows and decides
 * when alerts fire (compat reference §6.2):
 * - presence + immediate: once per window, when the count reaches `triggerlimit`;
 * - presence + terminal: when the window ends, if the count reached the limit and immediate did not
 *   fire in it;
 * - absence: when the window ends, if the count is under the limit, while the view is active.
 *
 * The windows live in the configuration database, not in this process: every node adds the lines
 * it stored to the same rows, under a per-channel lock, and records fires in the same transaction
 * as the deliveries they cause. A fire is unique per channel and window, so each fires exactly once
 * across the cluster and across crashes. Windows that ended while no node ran are closed once at
 * the next tick; the next window starts from the current time.
 */
export class AlertEvaluator {
  /** Stored windows this node's rules do not know, and since which load of the rules. */
  private readonly unknownSince = new Map<string, number>();

  constructor(
    private readonly state: AlertState,
    private readonly rules: AlertRules,
    /** Called inside the transaction that records a fire; enqueues its deliveries in it. */
    private readonly onFire: (event: AlertEvent, trx: ConfigKysely) => Promise<void>,
    private readonly now: () => number = Date.now,
    private readonly activity: AlertActivity = UNOBSERVED,
    /**
     * Whether other nodes write windows too: then a window this node's rules do not know may be
     * another node's for a view this node has not loaded yet, and it is removed only once it is
     * still unknown after the rules were loaded again.
     */
    private readonly shared = false,
  ) {}

  /** Whether an account has views with alerts, whose windows its stored lines count in. */
  watches(account: string): boolean {
    return this.rules.forAccount(account).length > 0;
  }

  /** Counts newly stored lines of an account against its views; fires immediate alerts. Says how many fired. */
  async observe(account: string, rows: StoredLine[]): Promise<number> {
    const rules = this.rules.forAccount(account);
    if (rules.length === 0) return 0;
    this.activity.evaluated('lines');
    const now = this.now();
    const work: Array<{ rule: ViewRule; channelRule: ChannelRule; matched: StoredLine[] }> = [];
    // Where activity is kept: each view's, and each channel's that carries fewer lines than its view.
    const active = new Set<string>();
    for (const rule of rules) {
      const matched = rows.filter(rule.matches);
      if (matched.length === 0) continue;
      active.add(rule.viewid);
      for (const channelRule of rule.channels) {
        // Only the lines its setter may see count towards, and go out with, a bounded channel.
        const carried = channelRule.carries ? matched.filter(channelRule.carries) : matched;
        if (carried.length === 0) continue;
        active.add(channelRule.activityKey);
        work.push({ rule, channelRule, matched: carried });
      }
    }
    if (active.size === 0) return 0;
    const fired = await this.state.locked(
      work.map((item) => item.channelRule.key),
      async (tx) => {
        const fires: PendingFire[] = [];
        for (const key of active) await tx.noteActivity(key, account, now);
        for (const { rule, channelRule, matched } of work) {
          const state = await this.current(tx, rule, channelRule, now, fires);
          state.count += matched.length;
          for (const row of matched.slice(0, Math.max(0, MAX_SAMPLES - state.samples.length))) state.samples.push(sharedExportRecord(row));
          if (firesImmediately(channelRule.channel, state.count, state.firedImmediate)) {
            state.firedImmediate = true;
            fires.push(await this.event(tx, rule, channelRule, state, 'immediate', now));
          }
          await tx.saveWindow(state);
          if (resolves(channelRule.channel)) await this.countTowardsResolve(tx, rule, channelRule, matched.length, now, fires);
        }
        return this.record(tx, fires);
      },
    );
    for (const kind of fired) this.activity.fired(kind);
    return fired.length;
  }

  /** Closes every window that has ended, and starts absence windows for active views. Says how many fired. */
  async tick(): Promise<number> {
    const now = this.now();
    const stored = new Map((await this.state.windows()).map((window) => [keyOf(window), window]));
    const lastLines = await this.state.activity();
    const due: Array<{ rule: ViewRule; channelRule: ChannelRule }> = [];
    const live = new Set<string>();
    for (const rule of this.rules.all()) {
      for (const channelRule of rule.channels) {
        live.add(channelRule.key);
        const window = stored.get(channelRule.key);
        const ended = window !== undefined && window.windowStart + channelRule.intervalMs <= now;
        const absenceToWatch = !window && channelRule.channel.operator === 'absence' && isActiveAt(lastLines.get(channelRule.activityKey), now);
        if (ended || absenceToWatch) due.push({ rule, channelRule });
      }
    }
    const forgotten = this.forgotten([...stored.values()], live);
    const resolving = await this.resolvesDue(now);
    if (due.length === 0 && forgotten.length === 0 && resolving.length === 0) return 0;
    const fired = await this.state.locked(
      [...due.map((item) => item.channelRule.key), ...forgotten.map(keyOf), ...resolving.map((item) => item.channelRule.key)],
      async (tx) => {
        const fires: PendingFire[] = [];
        for (const { rule, channelRule } of due) await tx.saveWindow(await this.current(tx, rule, channelRule, now, fires));
        for (const { rule, channelRule } of resolving) await this.countTowardsResolve(tx, rule, channelRule, 0, now, fires);
        for (const window of forgotten) await tx.forgetWindow(window.viewid, window.alertid);
        return this.record(tx, fires);
      },
    );
    for (const kind of fired) this.activity.fired(kind);
    return fired.length;
  }

  /** Auto-resolving channels whose open incident's resolve window has ended. */
  private async resolvesDue(now: number): Promise<Array<{ rule: ViewRule; channelRule: ChannelRule }>> {
    const incidents = await this.state.incidents();
    if (incidents.length === 0) return [];
    const open = new Map(incidents.map((incident) => [keyOf(incident), incident]));
    const due: Array<{ rule: ViewRule; channelRule: ChannelRule }> = [];
    for (const rule of this.rules.all()) {
      for (const channelRule of rule.channels) {
        const incident = open.get(channelRule.key);
        if (incident && resolves(channelRule.channel) && incident.windowStart + resolveIntervalMs(channelRule.channel) <= now) due.push({ rule, channelRule });
      }
    }
    return due;
  }

  /** Counts lines towards an open incident's resolve window, closing the incident when a window ended quiet. */
  private async countTowardsResolve(tx: AlertTransaction, rule: ViewRule, channelRule: ChannelRule, lines: number, now: number, fires: PendingFire[]): Promise<void> {
    const incident = await tx.incident(rule.viewid, channelRule.channel.alertid);
    if (!incident) return;
    const step = stepIncident(channelRule.channel, incident, now);
    if ('resolved' in step) {
      await tx.closeIncident(rule.viewid, channelRule.channel.alertid);
      const { windowStart, count } = step.resolved;
      const window = { ...incident, windowStart, count, firedImmediate: false, samples: [] };
      fires.push({ ...(await this.event(tx, rule, channelRule, window, 'resolve', windowStart + resolveIntervalMs(channelRule.channel))), windowEnd: windowStart + resolveIntervalMs(channelRule.channel) });
      return;
    }
    await tx.saveIncident({ ...step.current, count: step.current.count + lines });
  }

  /**
   * Stored windows of channels that no longer exist. Another node may have written a window for a
   * view this node's rules have not loaded yet, so where nodes share the windows one goes only once
   * it is still unknown after a reload of the rules.
   */
  private forgotten(stored: AlertWindow[], live: Set<string>): AlertWindow[] {
    const out: AlertWindow[] = [];
    const unknown = new Set<string>();
    for (const window of stored) {
      const key = keyOf(window);
      if (live.has(key)) continue;
      unknown.add(key);
      const since = this.unknownSince.get(key) ?? this.rules.generation;
      this.unknownSince.set(key, since);
      if (!this.shared || this.rules.generation > since) out.push(window);
    }
    for (const key of this.unknownSince.keys()) if (!unknown.has(key)) this.unknownSince.delete(key);
    return out;
  }

  /** The channel's state for the window containing `now`, closing an ended window first. */
  private async current(tx: AlertTransaction, rule: ViewRule, channelRule: ChannelRule, now: number, fires: PendingFire[]): Promise<AlertWindow> {
    const existing = await tx.window(rule.viewid, channelRule.channel.alertid);
    if (existing && existing.windowStart + channelRule.intervalMs > now) return existing;
    if (existing) {
      const fire = await this.close(tx, rule, channelRule, existing);
      if (fire) fires.push(fire);
    }
    return {
      account: rule.account,
      viewid: rule.viewid,
      alertid: channelRule.channel.alertid,
      windowStart: windowStart(now, channelRule.intervalMs),
      count: 0,
      firedImmediate: false,
      samples: [],
    };
  }

  private async close(tx: AlertTransaction, rule: ViewRule, channelRule: ChannelRule, state: AlertWindow): Promise<PendingFire | null> {
    const { channel } = channelRule;
    const end = state.windowStart + channelRule.intervalMs;
    this.activity.evaluated('window');
    const active = isActiveAt(await tx.lastLineAt(channelRule.activityKey), end);
    const kind = firesAtWindowEnd(channel, state.count, state.firedImmediate, active);
    return kind ? this.event(tx, rule, channelRule, state, kind, end) : null;
  }

  private async event(_tx: AlertTransaction, rule: ViewRule, channelRule: ChannelRule, state: AlertWindow, kind: FireKind, at: number): Promise<PendingFire> {
    return {
      account: rule.account,
      viewid: rule.viewid,
      viewName: rule.name,
      query: rule.query,
      channel: channelRule.channel,
      presetid: channelRule.presetid,
      held: channelRule.held,
      scopes: channelRule.scopes,
      kind,
      windowStart: state.windowStart,
      windowEnd: state.windowStart + channelRule.intervalMs,
      matches: state.count,
      samples: [...state.samples],
      firedAt: Math.max(at, this.now()),
    };
  }

  /** Records the fires; those recorded before (by another node, or before a crash) cause nothing more. */
  private async record(tx: AlertTransaction, fires: PendingFire[]): Promise<FireKind[]> {
    const fired: FireKind[] = [];
    for (const fire of fires) {
      const resolving = fire.kind === 'resolve';
      const fireId = await tx.recordFire({ ...fire, alertid: fire.channel.alertid, windowStart: resolving ? resolveFireStart(fire.windowStart) : fire.windowStart });
      if (fireId === null) continue;
      // The channel's incident is open until a quiet window closes it; a repeat fire keeps it open.
      if (!resolving && resolves(fire.channel)) {
        await tx.openIncident({ viewid: fire.viewid, alertid: fire.channel.alertid, account: fire.account, openedAt: fire.firedAt, windowStart: fire.firedAt, count: 0 });
      }
      await this.onFire({ ...fire, fireId }, tx.trx);
      fired.push(fire.kind);
    }
    return fired;
  }
}
