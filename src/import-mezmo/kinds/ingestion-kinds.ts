import { validate } from '../../http/validation.js';
import { type ExclusionRule, type ExclusionRuleFields, ExclusionRules, MAX_EXCLUSION_RULES } from '../../ingestion-controls/exclusion-rules.js';
import { parseExclusionRule } from '../../ingestion-controls/ingestion-control-routes.js';
import { type IndexRateConfig, IndexRateAlerts, UNSET, readConfig } from '../../index-rate/config.js';
import { errors } from '../../http/errors.js';
import { type ResourceKind, canonical, text } from './resource-kind.js';

/* Exclusion rules and the index-rate alert. */

/**
 * An exclusion rule is known by its title, or, untitled, by what it matches. The running server's
 * gate re-reads the rules within a second, so nothing needs telling.
 */
function exclusionKey(rule: { title?: unknown; apps?: unknown; hosts?: unknown; query?: unknown }): { key: string; name: string } {
  const title = text(rule.title)?.trim();
  if (title) return { key: `title/${title.toLowerCase()}`, name: title };
  const filters = canonical({ apps: rule.apps ?? [], hosts: rule.hosts ?? [], query: rule.query ?? '' });
  return { key: `filters/${filters}`, name: filters };
}

const exclusionFields = (rule: ExclusionRule | ExclusionRuleFields): ExclusionRuleFields => ({
  title: rule.title,
  active: rule.active,
  indexonly: rule.indexonly,
  apps: rule.apps,
  hosts: rule.hosts,
  query: rule.query,
});

export const exclusions: ResourceKind<ExclusionRuleFields> = {
  kind: 'exclusion',
  fields: { carried: ['title', 'active', 'indexonly', 'apps', 'hosts', 'query'], ignored: ['id', 'account', '_created', '_modified', 'created', 'modified'] },
  read: (source) => source.list('/v1/config/ingestion/exclusions'),
  async readLocal(local) {
    const byKey = new Map<string, string>();
    for (const rule of await new ExclusionRules(local.db).list(local.account)) byKey.set(exclusionKey(rule).key, rule.id);
    return byKey;
  },
  key: (item) => exclusionKey(item),
  check: (item) => parseExclusionRule({ title: item.title, active: item.active, indexonly: item.indexonly, apps: item.apps, hosts: item.hosts, query: item.query }),
  async create(input, local) {
    const created = await new ExclusionRules(local.db).create(local.account, input);
    if (created === 'full') throw errors.tooManyRules(`The organisation already has ${MAX_EXCLUSION_RULES} exclusion rules, the most it may hold.`);
    await local.record('ingestion-exclusion', 'create', created.id, null, created);
  },
  async unchanged(id, input, local) {
    const rule = await new ExclusionRules(local.db).get(local.account, id);
    return rule !== undefined && canonical(exclusionFields(rule)) === canonical(input);
  },
  async update(id, input, local) {
    const rules = new ExclusionRules(local.db);
    const before = await rules.get(local.account, id);
    const after = await rules.update(local.account, id, input);
    if (after) await local.record('ingestion-exclusion', 'update', id, before ?? null, after);
  },
};

/** The index-rate alert: one per organisation, so its key is always the same. Each monitor tick reads it anew. */
const INDEX_RATE_KEY = 'index-rate';

export const indexRate: ResourceKind<IndexRateConfig> = {
  kind: 'index-rate',
  fields: { carried: ['max_lines', 'max_z_score', 'threshold_alert', 'frequency', 'enabled', 'channels'], ignored: ['account', 'id'] },
  async read(source) {
    const config = await source.one('/v1/config/index-rate');
    // What the API answers for an organisation that never set one: nothing to carry.
    const channels = Object.values((config.channels ?? {}) as Record<string, unknown>).flat();
    const unset = config.enabled !== true && (config.max_lines ?? null) === null && (config.max_z_score ?? null) === null && channels.length === 0;
    return unset ? [] : [config];
  },
  async readLocal(local) {
    const config = await new IndexRateAlerts(local.db).get(local.account);
    return config === UNSET ? new Map() : new Map([[INDEX_RATE_KEY, INDEX_RATE_KEY]]);
  },
  key: () => ({ key: INDEX_RATE_KEY, name: 'index-rate alert' }),
  check: (item) => readConfig(item, validate),
  async create(input, local) {
    await new IndexRateAlerts(local.db).put(local.account, input);
    await local.record('index-rate', 'create', INDEX_RATE_KEY, null, input);
  },
  unchanged: async (_id, input, local) => canonical(await new IndexRateAlerts(local.db).get(local.account)) === canonical(input),
  async update(_id, input, local) {
    const alerts = new IndexRateAlerts(local.db);
    const before = await alerts.get(local.account);
    await alerts.put(local.account, input);
    await local.record('index-rate', 'update', INDEX_RATE_KEY, before, input);
  },
};
