import type { Channel } from '../views/channels.js';
import type { Preset, Presets } from '../views/presets.js';
import type { View, Views } from '../views/views.js';
import type { SearchableLine } from '../query/searchable.js';
import { intervalMs } from './intervals.js';
import { lineMatcher } from '../query/line-matcher.js';

/** One alert channel as it applies to one view: a preset shared by two views counts twice. */
export interface ChannelRule {
  /** `${viewid}:${alertid}`: the key of its window state. */
  key: string;
  channel: Channel;
  intervalMs: number;
  /** Set when the channel comes from a preset alert attached to the view. */
  presetid: string | null;
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
    for (const view of await this.views.all()) {
      const rule = ruleOf(view, view.presetid ? presets.get(view.presetid) : undefined);
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
    for (const view of await this.views.list(account)) {
      const rule = ruleOf(view, view.presetid ? presets.get(view.presetid) : undefined);
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

function ruleOf(view: View, preset: Preset | undefined): ViewRule | null {
  const channels: ChannelRule[] = [
    ...view.channels.map((channel) => ({ channel, presetid: null })),
    ...(preset?.channels ?? []).map((channel) => ({ channel, presetid: preset!.presetid })),
  ].map(({ channel, presetid }) => ({ key: `${view.viewid}:${channel.alertid}`, channel, intervalMs: intervalMs(channel.triggerinterval), presetid }));
  if (channels.length === 0) return null;
  return { account: view.account, viewid: view.viewid, name: view.name, query: view.filters.query ?? '', matches: lineMatcher(view.filters, view.accessScope), channels };
}
