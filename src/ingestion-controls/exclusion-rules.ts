import { newId } from '../lib/ids.js';
import type { ConfigKysely } from '../repository/open.js';

/** An ingestion exclusion rule as Mezmo's config API shows it (/v1/config/ingestion/exclusions). */
export interface ExclusionRule {
  id: string;
  title: string;
  /** Only an active rule excludes anything; a new rule is inactive until turned on. */
  active: boolean;
  /** True: matching lines still reach live tail and alerts, only storage skips them. False: dropped at once. */
  indexonly: boolean;
  apps: string[];
  hosts: string[];
  query: string;
}

export type ExclusionRuleFields = Omit<ExclusionRule, 'id'>;

/** An active rule as the ingest path's gate holds it: with the version of its filter, which its counts record. */
export type ActiveExclusionRule = ExclusionRule & { account: string; filterVersion: number };

/** Lines and bytes a rule excluded; with the lowest filter version they were counted under (-1: from before versions were kept). */
export interface ExcludedCount {
  account: string;
  ruleId: string;
  hour: number;
  lines: number;
  bytes: number;
  filterVersion: number;
}

/** An organisation may hold this many rules: each is tested against every line it sends. */
export const MAX_EXCLUSION_RULES = 100;

type Row = {
  id: string;
  account: string;
  title: string;
  active: number;
  indexonly: number;
  apps_json: string;
  hosts_json: string;
  query: string;
};

const fromRow = (row: Row): ExclusionRule => ({
  id: row.id,
  title: row.title,
  active: row.active === 1,
  indexonly: row.indexonly === 1,
  apps: JSON.parse(row.apps_json) as string[],
  hosts: JSON.parse(row.hosts_json) as string[],
  query: row.query,
});

const toColumns = (fields: ExclusionRuleFields) => ({
  title: fields.title,
  active: fields.active ? 1 : 0,
  indexonly: fields.indexonly ? 1 : 0,
  apps_json: JSON.stringify(fields.apps),
  hosts_json: JSON.stringify(fields.hosts),
  query: fields.query,
});

const COLUMNS = ['id', 'account', 'title', 'active', 'indexonly', 'apps_json', 'hosts_json', 'query'] as const;

/** The exclusion rules in the configuration database, each organisation's apart. */
export class ExclusionRules {
  constructor(private readonly db: ConfigKysely) {}

  async list(account: string): Promise<ExclusionRule[]> {
    const rows = await this.db.selectFrom('exclusion_rules').select(COLUMNS).where('account', '=', account).orderBy('created_at').orderBy('id').execute();
    return rows.map(fromRow);
  }

  async get(account: string, id: string): Promise<ExclusionRule | undefined> {
    const row = await this.db.selectFrom('exclusion_rules').select(COLUMNS).where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return row && fromRow(row);
  }

  /** Creates a rule; 'full' when the organisation already holds MAX_EXCLUSION_RULES (checked in the same transaction). */
  async create(account: string, fields: ExclusionRuleFields): Promise<ExclusionRule | 'full'> {
    return this.db.transaction().execute(async (trx) => {
      const { n } = await trx.selectFrom('exclusion_rules').select((eb) => eb.fn.countAll<number>().as('n')).where('account', '=', account).executeTakeFirstOrThrow();
      if (Number(n) >= MAX_EXCLUSION_RULES) return 'full' as const;
      const id = newId();
      await trx.insertInto('exclusion_rules').values({ id, account, ...toColumns(fields), created_at: Date.now() }).execute();
      return { id, ...fields };
    });
  }

  /**
   * Replaces a rule's fields; undefined when the organisation has no such rule. A change of its
   * apps, hosts or query (compared as stored) moves its filter version on.
   */
  async update(account: string, id: string, fields: ExclusionRuleFields): Promise<ExclusionRule | undefined> {
    const columns = toColumns(fields);
    const result = await this.db
      .updateTable('exclusion_rules')
      .set((eb) => ({
        ...columns,
        filter_version: eb
          .case()
          .when(eb.and([eb('apps_json', '=', columns.apps_json), eb('hosts_json', '=', columns.hosts_json), eb('query', '=', columns.query)]))
          .then(eb.ref('filter_version'))
          .else(eb('filter_version', '+', 1))
          .end(),
      }))
      .where('account', '=', account)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0 ? { id, ...fields } : undefined;
  }

  async remove(account: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('exclusion_rules').where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Every organisation's active rules, for the ingest path's cache. */
  async allActive(): Promise<ActiveExclusionRule[]> {
    const rows = await this.db.selectFrom('exclusion_rules').select([...COLUMNS, 'filter_version']).where('active', '=', 1).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => ({ account: row.account, ...fromRow(row), filterVersion: Number(row.filter_version) }));
  }

  /**
   * Lines and bytes each of an organisation's rules excluded since `sinceMs` (whole hours, by the
   * hour they arrived in), and in all.
   */
  async excludedSince(account: string, sinceMs: number, untilMs = Number.MAX_SAFE_INTEGER): Promise<Map<string, { lines: number; bytes: number }>> {
    const rows = await this.db
      .selectFrom('exclusion_counts')
      .select((eb) => ['rule_id', eb.fn.sum<number>('lines').as('lines'), eb.fn.sum<number>('bytes').as('bytes')])
      .where('account', '=', account)
      .where('hour', '>=', sinceMs)
      .where('hour', '<=', untilMs)
      .groupBy('rule_id')
      .execute();
    return new Map(rows.map((row) => [row.rule_id, { lines: Number(row.lines), bytes: Number(row.bytes) }]));
  }

  /**
   * The organisation's rules, each with what it excluded since `sinceMs` (whole hours) under its
   * present filter only: the hours counted wholly under its apps, hosts and query as they now read,
   * so every line counted is a line that filter lets through. Hours from before a change of its
   * filter, or from before filter versions were kept, are left out, as are deleted rules. One
   * statement, so a rule and its counts are read at the same moment: an edit in between cannot
   * pair one filter with another's counts.
   */
  async listWithCurrentCounts(account: string, sinceMs: number, untilMs = Number.MAX_SAFE_INTEGER): Promise<Array<ExclusionRule & { lines: number; bytes: number }>> {
    const columns = COLUMNS.map((column) => `exclusion_rules.${column}` as const);
    const rows = await this.db
      .selectFrom('exclusion_rules')
      .leftJoin('exclusion_counts', (join) =>
        join
          .onRef('exclusion_counts.account', '=', 'exclusion_rules.account')
          .onRef('exclusion_counts.rule_id', '=', 'exclusion_rules.id')
          .onRef('exclusion_counts.filter_version', '=', 'exclusion_rules.filter_version')
          .on('exclusion_counts.hour', '>=', sinceMs)
          .on('exclusion_counts.hour', '<=', untilMs),
      )
      .select(columns)
      .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('exclusion_counts.lines'), eb.lit(0)).as('lines'), eb.fn.coalesce(eb.fn.sum<number>('exclusion_counts.bytes'), eb.lit(0)).as('bytes')])
      .where('exclusion_rules.account', '=', account)
      .groupBy([...columns, 'exclusion_rules.created_at'])
      .orderBy('exclusion_rules.created_at')
      .orderBy('exclusion_rules.id')
      .execute();
    return rows.map((row) => ({ ...fromRow(row), lines: Number(row.lines), bytes: Number(row.bytes) }));
  }

  /**
   * Adds counts of excluded lines, per organisation, rule and hour. An hour keeps the lowest filter
   * version it was counted under, so an hour that mixes a rule's old filter and its new one is
   * taken for the old.
   */
  async addCounts(counts: ExcludedCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.db
      .insertInto('exclusion_counts')
      .values(counts.map((count) => ({ account: count.account, rule_id: count.ruleId, hour: count.hour, lines: count.lines, bytes: count.bytes, filter_version: count.filterVersion })))
      .onConflict((conflict) =>
        conflict.columns(['account', 'rule_id', 'hour']).doUpdateSet((eb) => ({
          lines: eb('exclusion_counts.lines', '+', eb.ref('excluded.lines')),
          bytes: eb('exclusion_counts.bytes', '+', eb.ref('excluded.bytes')),
          filter_version: eb
            .case()
            .when('exclusion_counts.filter_version', '<', eb.ref('excluded.filter_version'))
            .then(eb.ref('exclusion_counts.filter_version'))
            .else(eb.ref('excluded.filter_version'))
            .end(),
        })),
      )
      .execute();
  }
}
