import type { Channel } from '../views/channels.js';
import type { Preset, Presets } from '../views/presets.js';
import type { View, Views } from '../views/views.js';
import type { SearchableLine } from '../query/searchable.js';
import { intervalMs } from './intervals.js';
import { lineMatcher } from '../query/line-matcher.js';
import { type AccessScope, sameScope } from '../query/access-scope.js';
import { type SetterDirectory, SetterLookup, legacySetter } from '../views/setters.js';

/** One alert channel as it applies to one view: a preset shared by two views counts twice. */
export interface ChannelRule {
  /** `${viewid}:${alertid}`: the key of its window state. */
  key: string;
  /** The channel, with its setter (a view's last saver for a channel saved before setters were recorded). */
  channel: Channel;
  intervalMs: number;
  /** Set when the channel comes from a preset alert attached to the view. */
  presetid: string | null;
  /**
   * The setter's scope as a second test, when it is narrower than the view's: the channel counts
   * and sends only the view's lines that its setter may see now. Null when the view's test suffices.
   */
  carries: ((line: SearchableLine) => boolean) | null;
  /** Where its view's activity is kept (an absence alert's "active"): its own key when it carries fewer lines than the view. */
  activityKey: string;
  /** Why nothing is sent to its target (its setter is gone); its fires are recorded as held. */
  held: string | null;
  /** The scopes that bound what it carries: the view's and its setter's. */
  scopes: AccessScope[];
}

export interface ViewRule {
  account: string;
  viewid: string;
  name: string;
  query: string;
  matches: (line: SearchableLine) => boolean;
  channels: ChannelRule[];
}

/**
 * The alerting view of configuration: every view that has channels (its own, or its preset's),
 * with its compiled matcher. Reloaded for an account as soon as its views or presets change here,
 * and, where other nodes change configuration too, every `reloadMs`.
 */
export class AlertRules {
  private byAccount = new Map<string, ViewRule[]>();
  /** Counts the completed loads of every organisation's rules: what was unknown before one and still is after it is really gone. */
  generation = 0;
  /** Organisations reloaded on their own while a whole load ran: their fresher rules are kept. */
  private reloadedDuringLoad: Set<string> | undefined;
  private loading: Promise<void> | undefined;

  private readonly unsubscribe: Array<() => void>;

  /** Follows every write to views and presets at once, until `stop`. */
  constructor(
    private readonly views: Views,
    private readonly presets: Presets,
    /** Where channels' setters are read: each load reads their scopes afresh. */
    private readonly setters: SetterDirectory,
  ) {
    this.unsubscribe = [views.changes.subscribe((account) => this.invalidate(account)), presets.changes.subscribe((account) => this.invalidate(account))];
  }

  /** Stops following writes, and waits for a load under way. */
  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    await this.settled();
  }

  /** Loads every organisation's rules; a call while a load runs waits for that one. */
  load(): Promise<void> {
    this.loading ??= this.loadAll().finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** Resolves once no load is under way (at shutdown). */
  async settled(): Promise<void> {
    await this.loading?.catch(() => {});
  }

  private async loadAll(): Promise<void> {
    this.reloadedDuringLoad = new Set();
    const presets = new Map((await this.presets.all()).map((preset) => [preset.presetid, preset]));
    const byAccount = new Map<string, ViewRule[]>();
    const setters = new SetterLookup(this.setters);
    for (const view of await this.views.all()) {
      const rule = await ruleOf(view, view.presetid ? presets.get(view.presetid) : undefined, setters);
      if (!rule) continue;
      const list = byAccount.get(view.account) ?? [];
      list.push(rule);
      byAccount.set(view.account, list);
    }
    for (const account of this.reloadedDuringLoad) {
      const fresher = this.byAccount.get(account);
      if (fresher) byAccount.set(account, fresher);
      else byAccount.delete(account);
    }
    this.reloadedDuringLoad = undefined;
    this.byAccount = byAccount;
    this.generation++;
  }

  /** Called on every configuration write of the account; the write's answer waits for it. */
  async invalidate(account: string): Promise<void> {
    const presets = new Map((await this.presets.list(account)).map((preset) => [preset.presetid, preset]));
    const rules: ViewRule[] = [];
    const setters = new SetterLookup(this.setters);
    for (const view of await this.views.list(account)) {
      const rule = await ruleOf(view, view.presetid ? presets.get(view.presetid) : undefined, setters);
      if (rule) rules.push(rule);
    }
    this.byAccount.set(account, rules);
    this.reloadedDuringLoad?.add(account);
  }

  forAccount(account: string): ViewRule[] {
    return this.byAccount.get(account) ?? [];
  }

  /** Every account's rules, for the window clock. */
  all(): ViewRule[] {
    return [...this.byAccount.values()].flat();
  }
}

/**
 * A view's rule: its test (its filters inside the scope of whoever last saved it), and each of its
 * channels (its own and its preset's) bounded again by the scope of whoever set that channel's
 * target, so that no edit by someone else widens what a target receives (issue 39).
 */
async function ruleOf(view: View, preset: Preset | undefined, setters: SetterLookup): Promise<ViewRule | null> {
  const sources = [
    ...view.channels.map((channel) => ({ channel: { ...channel, setBy: channel.setBy ?? legacySetter(view.savedBy) }, presetid: null })),
    ...(preset?.channels ?? []).map((channel) => ({ channel, presetid: preset!.presetid })),
  ];
  if (sources.length === 0) return null;
  const channels = await Promise.all(
    sources.map(async ({ channel, presetid }): Promise<ChannelRule> => {
      const key = `${view.viewid}:${channel.alertid}`;
      const standing = await setters.standing(channel.setBy);
      // A held channel sends nothing, so it counts as its view does and its fires are only recorded.
      const narrower = standing.held === null && standing.scope !== null && !sameScope(standing.scope, view.accessScope);
      const carries = narrower ? lineMatcher({}, standing.scope) : null;
      return {
        key,
        channel,
        intervalMs: intervalMs(channel.triggerinterval),
        presetid,
        carries,
        activityKey: carries ? key : view.viewid,
        held: standing.held,
        scopes: [view.accessScope, standing.scope].filter((scope) => scope !== null),
      };
    }),
  );
  return { account: view.account, viewid: view.viewid, name: view.name, query: view.filters.query ?? '', matches: lineMatcher(view.filters, view.accessScope), channels };
}
