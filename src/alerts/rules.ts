import type { Channel } from '../config/channels.js';
import type { Presets } from '../config/presets.js';
import type { Views } from '../config/views.js';
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
 * with its compiled matcher. Rebuilt for an account as soon as its views or presets change.
 */
export class AlertRules {
  private readonly byAccount = new Map<string, ViewRule[]>();
  private readonly stale = new Set<string>();

  constructor(
    private readonly views: Views,
    private readonly presets: Presets,
  ) {
    for (const account of views.accounts()) this.stale.add(account);
  }

  /** Called on every configuration write of the account. */
  invalidate(account: string): void {
    this.stale.add(account);
  }

  forAccount(account: string): ViewRule[] {
    if (this.stale.has(account) || !this.byAccount.has(account)) this.rebuild(account);
    return this.byAccount.get(account)!;
  }

  /** Every account's rules, for the window clock. */
  all(): ViewRule[] {
    for (const account of this.stale) this.rebuild(account);
    return [...this.byAccount.values()].flat();
  }

  private rebuild(account: string): void {
    this.stale.delete(account);
    const presets = new Map(this.presets.list(account).map((preset) => [preset.presetid, preset]));
    const rules: ViewRule[] = [];
    for (const view of this.views.list(account)) {
      const preset = view.presetid ? presets.get(view.presetid) : undefined;
      const channels: ChannelRule[] = [
        ...view.channels.map((channel) => ({ channel, presetid: null })),
        ...(preset?.channels ?? []).map((channel) => ({ channel, presetid: preset!.presetid })),
      ].map(({ channel, presetid }) => ({ key: `${view.viewid}:${channel.alertid}`, channel, intervalMs: intervalMs(channel.triggerinterval), presetid }));
      if (channels.length === 0) continue;
      rules.push({ account, viewid: view.viewid, name: view.name, query: view.filters.query ?? '', matches: lineMatcher(view.filters), channels });
    }
    this.byAccount.set(account, rules);
  }
}
