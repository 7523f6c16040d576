import type { Accounts } from '../accounts/accounts.js';

export const DAY_MS = 86_400_000;

/** The oldest time lines kept `days` days are kept from, at `now`. */
export const retainedFrom = (days: number, now: number): number => now - days * DAY_MS;

/** How long an organisation's lines are kept: its own retention, or the server's default. */
export interface RetentionInForce {
  retentionDays: number;
  /** True when the organisation has no retention of its own (LOGSTEAD_RETENTION_DAYS applies). */
  retentionIsDefault: boolean;
}

/**
 * Each organisation's retention: the one source every reader asks (ingest and reads on every
 * request, usage reports, the schedule that frees the disk, the CLI). It keeps the organisations'
 * own settings in memory, loaded from the configuration; `start` reloads them when this node
 * changes one and, since another node or the CLI may change them too, every `reloadMs`.
 */
export class RetentionPolicy {
  private own = new Map<string, number | null>();

  private constructor(
    private readonly accounts: Accounts,
    readonly defaultDays: number,
  ) {}

  /** A policy loaded once, for a command that reads it and exits. */
  static async load(accounts: Accounts, defaultDays: number): Promise<RetentionPolicy> {
    const policy = new RetentionPolicy(accounts, defaultDays);
    await policy.reload();
    return policy;
  }

  async reload(): Promise<void> {
    const organisations = await this.accounts.list();
    this.own = new Map(organisations.map((org) => [org.account, org.retentionDays]));
  }

  /** Whether the organisation existed at the last load. */
  knows(account: string): boolean {
    return this.own.has(account);
  }

  /** Days the organisation's lines are kept. */
  daysOf(account: string): number {
    return this.own.get(account) ?? this.defaultDays;
  }

  inForce(account: string): RetentionInForce {
    const own = this.own.get(account) ?? null;
    return { retentionDays: own ?? this.defaultDays, retentionIsDefault: own === null };
  }

  /** The oldest time the organisation keeps lines from: reads never return older ones. */
  keptFrom(account: string, now = Date.now()): number {
    return retainedFrom(this.daysOf(account), now);
  }

  /** Every organisation as of the last load, with the days its lines are kept. */
  all(): Array<{ account: string; days: number }> {
    return [...this.own.keys()].map((account) => ({ account, days: this.daysOf(account) }));
  }
}
