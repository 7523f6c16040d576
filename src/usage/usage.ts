import type { AccessScope } from '../query/access-scope.js';
import { compileQuery } from '../query/compile.js';
import type { LogStore } from '../store/log-store.js';
import type { UsageReport } from '../wire/types.js';
import { type RetentionInForce, retainedFrom } from '../retention/policy.js';
import { type QueryParams, parseTimeRange } from '../http/filter-params.js';

/** How many apps and hosts a usage report ranks. */
export const USAGE_TOP = 10;

export type { RetentionInForce } from '../retention/policy.js';

/** What GET /v1/usage and `logstead org usage` answer: the wire type, documented in the README's "Usage". */
export type { UsageReport } from '../wire/types.js';

/**
 * Usage reports, shared by the HTTP API, the running server's control socket and the offline
 * command, so all three answer the same for the same lines.
 */
export class UsageReports {
  constructor(
    private readonly store: LogStore,
    private readonly retention: (account: string) => RetentionInForce | Promise<RetentionInForce>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * `query` holds from and to as the read APIs take them (Unix seconds or ms), both optional: by
   * default, all the organisation keeps, up to now. Bad values throw the catalogue's 400. A reader
   * with an access scope is told only of the lines inside it (operators, and keys, pass null).
   */
  async report(account: string, query: QueryParams, scope: AccessScope): Promise<UsageReport> {
    const retention = await this.retention(account);
    const now = this.now();
    const keptFrom = retainedFrom(retention.retentionDays, now);
    const range = parseTimeRange(query, { fromMs: keptFrom, toMs: now });
    const from = Math.max(range.fromMs, keptFrom);
    const usage = await this.store.usage(account, from, range.toMs, USAGE_TOP, compileQuery('', scope));
    return {
      account,
      from,
      to: range.toMs,
      ...retention,
      totals: usage.totals,
      days: usage.days,
      topApps: usage.apps,
      topHosts: usage.hosts,
    };
  }
}
