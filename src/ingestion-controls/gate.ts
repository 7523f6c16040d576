import { errors } from '../http/errors.js';
import type { ExclusionVerdict, IntakeGate } from '../ingest/intake.js';
import { lineMatcher } from '../query/line-matcher.js';
import type { StoredLine } from '../store/types.js';
import type { ExcludedCount, ExclusionRules } from './exclusion-rules.js';
import type { IngestionSuspension } from './suspension.js';

const HOUR_MS = 3_600_000;

interface CompiledRule {
  id: string;
  indexonly: boolean;
  /** The version of the filter `matches` was compiled from, which the rule's counts record. */
  filterVersion: number;
  matches: (line: StoredLine) => boolean;
}

/**
 * What the ingest path asks of every request (ingest/intake.ts): whether the organisation's ingestion
 * is suspended, and which of its lines an active exclusion rule keeps out of the store. Both are held
 * in memory, since they are asked of every line, and reloaded from the configuration database (at
 * once after a change at this node, and every `reloadMs` for changes made at other nodes). The
 * lines each rule excluded are counted here and added to the database every flush.
 */
export class IngestionGate implements IntakeGate {
  private suspended = new Set<string>();
  private rules = new Map<string, CompiledRule[]>();
  private counts = new Map<string, ExcludedCount>();

  constructor(
    private readonly exclusions: ExclusionRules,
    private readonly suspension: IngestionSuspension,
    private readonly now: () => number = Date.now,
  ) {}

  async reload(): Promise<void> {
    const [suspended, active] = await Promise.all([this.suspension.suspendedAccounts(), this.exclusions.allActive()]);
    const rules = new Map<string, CompiledRule[]>();
    for (const rule of active) {
      let matches: (line: StoredLine) => boolean;
      try {
        matches = lineMatcher({ apps: rule.apps, hosts: rule.hosts, query: rule.query }, null);
      } catch {
        continue; // saved before a change of the query language made it invalid: it excludes nothing
      }
      const list = rules.get(rule.account) ?? [];
      list.push({ id: rule.id, indexonly: rule.indexonly, filterVersion: rule.filterVersion, matches });
      rules.set(rule.account, list);
    }
    // A rule that drops a line outright decides before one that only keeps it from the store.
    for (const list of rules.values()) list.sort((a, b) => Number(a.indexonly) - Number(b.indexonly));
    this.suspended = new Set(suspended);
    this.rules = rules;
  }

  isSuspended(account: string): boolean {
    return this.suspended.has(account);
  }

  /** Refuses the request as Mezmo refuses ingestion for a suspended account (403). */
  admit(account: string): void {
    if (this.suspended.has(account)) throw errors.ingestionSuspended();
  }

  exclusionsFor(account: string): ((line: StoredLine) => ExclusionVerdict) | undefined {
    const rules = this.rules.get(account);
    if (!rules) return undefined;
    const hour = Math.floor(this.now() / HOUR_MS) * HOUR_MS;
    return (line) => {
      for (const rule of rules) {
        if (!rule.matches(line)) continue;
        const key = `${account}\n${rule.id}\n${hour}`;
        let count = this.counts.get(key);
        if (!count) this.counts.set(key, (count = { account, ruleId: rule.id, hour, lines: 0, bytes: 0, filterVersion: rule.filterVersion }));
        // A reload within the hour may bring a new filter: the hour is then taken for the old one.
        else if (rule.filterVersion < count.filterVersion) count.filterVersion = rule.filterVersion;
        count.lines++;
        count.bytes += line.size;
        return rule.indexonly ? 'indexonly' : 'drop';
      }
      return 'store';
    };
  }

  /** Adds the lines excluded since the last flush to the database's counts. */
  async flush(): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = [...this.counts.values()];
    this.counts = new Map();
    try {
      await this.exclusions.addCounts(counts);
    } catch (error) {
      // Counted again at the next flush rather than lost.
      for (const count of counts) {
        const key = `${count.account}\n${count.ruleId}\n${count.hour}`;
        const later = this.counts.get(key);
        if (later) {
          later.lines += count.lines;
          later.bytes += count.bytes;
          later.filterVersion = Math.min(later.filterVersion, count.filterVersion);
        } else this.counts.set(key, count);
      }
      throw error;
    }
  }
}
