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

  /** Replaces a rule's fields; undefined when the organisation has no such rule. */
  async update(account: string, id: string, fields: ExclusionRuleFields): Promise<ExclusionRule | undefined> {
    const result = await this.db.updateTable('exclusion_rules').set(toColumns(fields)).where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0 ? { id, ...fields } : undefined;
  }

  async remove(account: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('exclusion_rules').where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Every organisation's active rules, for the ingest path's cache. */
  async allActive(): Promise<Array<ExclusionRule & { account: string }>> {
    const rows = await this.db.selectFrom('exclusion_rules').select(COLUMNS).where('active', '=', 1).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => ({ account: row.account, ...fromRow(row) }));
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

  /** Adds counts of excluded lines, per organisation, rule and hour. */
  async addCounts(counts: Array<{ account: string; ruleId: string; hour: number; lines: number; bytes: number }>): Promise<void> {
    if (counts.length === 0) return;
    await this.db
      .insertInto('exclusion_counts')
      .values(counts.map((count) => ({ account: count.account, rule_id: count.ruleId, hour: count.hour, lines: count.lines, bytes: count.bytes })))
      .onConflict((conflict) =>
        conflict.columns(['account', 'rule_id', 'hour']).doUpdateSet((eb) => ({
          lines: eb('exclusion_counts.lines', '+', eb.ref('excluded.lines')),
          bytes: eb('exclusion_counts.bytes', '+', eb.ref('excluded.bytes')),
        })),
      )
      .execute();
  }
}
