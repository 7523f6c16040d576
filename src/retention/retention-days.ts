import type { Accounts } from '../accounts/accounts.js';

/**
 * Each organisation's retention in days, kept in memory for the paths that ask on every request
 * (ingest and reads). Reloaded when this node changes one and, since another node or the CLI may
 * change it too, every `reloadMs`.
 */
export class RetentionDays {
  private overrides = new Map<string, number>();
  private known: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly accounts: Accounts,
    private readonly defaultDays: number,
  ) {}

  async load(): Promise<void> {
    const organisations = await this.accounts.list();
    this.known = organisations.map((org) => org.account);
    this.overrides = new Map(organisations.filter((org) => org.retentionDays !== null).map((org) => [org.account, org.retentionDays!]));
  }

  /** Every organisation as of the last load, with the days its lines are kept. */
  all(): Array<{ account: string; days: number }> {
    return this.known.map((account) => ({ account, days: this.of(account) }));
  }

  /** Days the organisation's lines are kept. */
  of(account: string): number {
    return this.overrides.get(account) ?? this.defaultDays;
  }

  start(reloadMs: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => this.load().catch(onError), reloadMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
