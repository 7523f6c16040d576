import { ApiError } from '../http/errors.js';
import { validate } from '../http/validation.js';
import { Sessions } from '../http/sessions.js';
import { AuditTrail } from '../audit/audit-trail.js';
import type { ConfigKysely } from '../repository/open.js';
import { CATEGORY_TYPES, Categories, type CategoryType } from '../views/categories.js';
import { parseCategoryName } from '../views/category-routes.js';
import { type Channel, INTEGRATIONS, channelsSchema, prepareChannels, withAlertIds, withSetters } from '../views/channels.js';
import { parsePresetBody } from '../views/preset-routes.js';
import { Presets } from '../views/presets.js';
import { parseViewBody, viewFilters } from '../views/view-routes.js';
import { Views } from '../views/views.js';
import { answeringRefusals } from '../people/access-answer.js';
import { parseGroupCreate } from '../people/group-routes.js';
import { Groups } from '../people/groups.js';
import { passwordLink } from '../people/invitations.js';
import { parseMemberCreate } from '../people/member-routes.js';
import { Members, normaliseEmail } from '../people/members.js';
import { OneTimeLinks } from '../people/one-time-links.js';
import { ScopeFollower } from '../people/scope-follow.js';
import { type ExclusionRule, type ExclusionRuleFields, ExclusionRules, MAX_EXCLUSION_RULES } from '../ingestion-controls/exclusion-rules.js';
import { parseExclusionRule } from '../ingestion-controls/ingestion-control-routes.js';
import { type IndexRateConfig, IndexRateAlerts, UNSET, readConfig } from '../index-rate/config.js';
import { errors } from '../http/errors.js';
import { type BoardBody, boardColumns, parseBoardBody, presentBoard } from '../boards/board-routes.js';
import { Boards } from '../boards/boards.js';
import { graphProblems, graphSchema } from '../boards/graph.js';
import type { GraphSpec } from '../wire/types.js';
import { type MezmoSource, SourceReadError } from './source.js';

/** Who the audit trail names for what the importer writes. */
export const IMPORTER = 'operator (import-mezmo)';

export type SourceItem = Record<string, unknown>;

/** The organisation receiving the configuration, through the same stores the API routes use. */
export class LocalConfig {
  readonly views: Views;
  readonly presets: Presets;
  readonly categories: Categories;
  readonly groups: Groups;
  readonly members: Members;
  readonly audit: AuditTrail;

  constructor(
    readonly db: ConfigKysely,
    readonly account: string,
    /** Where new members' one-time links point, and for how long they work. */
    readonly links: { publicUrl: string; inviteHours: number },
  ) {
    this.views = new Views(db);
    this.presets = new Presets(db);
    this.categories = new Categories(db);
    this.groups = new Groups(db);
    this.members = new Members(db);
    this.audit = new AuditTrail(db);
  }

  record(resource: string, action: 'create' | 'update', id: string, before: unknown, after: unknown): Promise<void> {
    return this.audit.record(this.account, { actor: IMPORTER, address: '', action: `${resource}.${action}`, resource, id, before: before ?? null, after });
  }
}

/** Something in the source that is not carried over: a whole item, or (with `part`) a piece of one. */
export interface NotCarried {
  kind: string;
  name: string;
  part?: string;
  reason: string;
}

/** What an applied write gives back for the report: a new member's password link. */
export interface Applied {
  link?: { email: string; link: string };
}

/** What a kind's `check` learns from the other kinds' source items and plans. */
export interface PlanContext {
  local: LocalConfig;
  /** Every kind's source items, read before planning. */
  source: Map<string, SourceItem[]>;
  /** Natural keys (normalised) of items of each kind that exist locally or will be created. */
  willExist: Map<string, Set<string>>;
}

/** A refusal of a whole item, with its reason. */
export class NotCarriedOver extends Error {}

/**
 * One kind of configuration the importer carries: where it is read in the source, how an item is
 * named (its natural key, by which a second run finds what the first created), how it is checked
 * (with the API routes' own validation) and written. `check` throws to refuse the whole item
 * (NotCarriedOver, or the routes' ApiError) and calls `partly` for pieces left behind.
 */
export interface ResourceKind<Input = unknown> {
  kind: string;
  /** Fields of a source item that are read, or known to be the source's own bookkeeping; any other is reported. */
  fields: { carried: string[]; ignored: string[] };
  read(source: MezmoSource): Promise<SourceItem[]>;
  /** Local items of the organisation by natural key, with the local id. */
  readLocal(local: LocalConfig): Promise<Map<string, string>>;
  /** The natural key, normalised for matching, and the name the plan shows. */
  key(item: SourceItem): { key: string; name: string } | undefined;
  check(item: SourceItem, context: PlanContext, partly: (part: string, reason: string) => void): Promise<Input> | Input;
  create(input: Input, local: LocalConfig): Promise<Applied | void>;
  /** Whether the existing local item already holds what the source has: the plan then keeps it, and nothing is written. */
  unchanged?: (id: string, input: Input, local: LocalConfig) => Promise<boolean>;
  /** Brings an existing local item in line; undefined: there is nothing to change for this kind. */
  update: ((id: string, input: Input, local: LocalConfig) => Promise<Applied | void>) | undefined;
}

/** JSON with object keys sorted, to compare stored values whatever order their keys were written in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().filter((key) => (value as Record<string, unknown>)[key] !== undefined).map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** A refusal by the API's own validation, as one line: its message and each detail. */
export function reasonOf(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.body as { details?: Array<{ message: string }> }).details;
    return details?.length ? details.map((detail) => detail.message).join('; ') : error.body.error;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A channel's bookkeeping as a source shows it (its id; a Logstead source's setter and held reason): not carried, not reported. */
const CHANNEL_BOOKKEEPING = ['alertid', 'setter', 'held'];
/**
 * Fields a channel is carried with, by integration; Mezmo's others (PagerDuty's auto-resolve,
 * schedules) are reported. Auto-resolve comes with the channels that implement it here.
 */
const CHANNEL_FIELDS = ['integration', 'operator', 'triggerlimit', 'triggerinterval', 'immediate', 'terminal', 'emails', 'timezone', 'url', 'method', 'headers', 'bodyTemplate', 'key'];
const AUTORESOLVE_FIELDS = ['autoresolve', 'autoresolveinterval', 'autoresolvelimit'];
const INTEGRATION_FIELDS: Record<string, string[]> = {
  slack: ['color'],
  opsgenie: ['region', ...AUTORESOLVE_FIELDS],
  victorops: ['routingkey', ...AUTORESOLVE_FIELDS],
};
const carries = (integration: string, field: string) => CHANNEL_FIELDS.includes(field) || (INTEGRATION_FIELDS[integration] ?? []).includes(field);

/**
 * The channels Logstead can deliver, each checked alone by the routes' channel schema: a channel of
 * a kind Logstead lacks, or one the schema refuses, is left behind with its reason and the rest of
 * its view or preset still comes.
 */
function carryChannels(raw: unknown, partly: (part: string, reason: string) => void): Array<Omit<Channel, 'alertid'>> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    partly('channels', 'not a list');
    return [];
  }
  const carried: Array<Omit<Channel, 'alertid'>> = [];
  raw.forEach((channel, index) => {
    const part = `channel ${index + 1}${channel && typeof channel === 'object' && typeof channel.integration === 'string' ? ` (${channel.integration})` : ''}`;
    if (!channel || typeof channel !== 'object' || Array.isArray(channel)) return partly(part, 'not an object');
    const integration = String((channel as SourceItem).integration ?? '');
    if (!INTEGRATIONS.includes(integration)) {
      return partly(part, `Logstead has no "${integration}" integration; it delivers ${INTEGRATIONS.join(', ')}`);
    }
    const kept: SourceItem = {};
    const dropped: string[] = [];
    for (const [field, value] of Object.entries(channel as SourceItem)) {
      if (carries(integration, field)) kept[field] = value;
      else if (!CHANNEL_BOOKKEEPING.includes(field) && value !== null && value !== '' && value !== false) dropped.push(field);
    }
    try {
      const [checked] = validate<Array<Omit<Channel, 'alertid'>>>(channelsSchema, prepareChannels([kept]));
      carried.push(checked);
      if (dropped.length) partly(`${part}: ${dropped.join(', ')}`, 'Logstead channels have no such settings');
    } catch (error) {
      partly(part, reasonOf(error).replaceAll('"[0].', '"').replaceAll('"[0]"', '"channel"'));
    }
  });
  return carried;
}

/** Reports fields of a source item that the kind neither carries nor knows to be bookkeeping. */
export function unknownFields(kind: ResourceKind, item: SourceItem): string[] {
  return Object.keys(item).filter((field) => !kind.fields.carried.includes(field) && !kind.fields.ignored.includes(field));
}

interface CategoryInput {
  type: CategoryType;
  name: string;
}

const categories: ResourceKind<CategoryInput> = {
  kind: 'category',
  fields: { carried: ['name', 'type'], ignored: ['id', 'account', '_created', '_modified', 'created', 'modified'] },
  async read(source) {
    const all: SourceItem[] = [];
    // Each is tagged with its type, which the path gives (a source may not echo it).
    for (const type of CATEGORY_TYPES) for (const item of await source.list(`/v1/config/categories/${type}`)) all.push({ ...item, type });
    return all;
  },
  async readLocal(local) {
    const byKey = new Map<string, string>();
    for (const type of CATEGORY_TYPES) for (const category of await local.categories.list(local.account, type)) byKey.set(`${type}/${category.name.toLowerCase()}`, category.id);
    return byKey;
  },
  key: (item) => (text(item.name) ? { key: `${item.type}/${text(item.name)!.trim().toLowerCase()}`, name: `${item.type}/${text(item.name)!.trim()}` } : undefined),
  check: (item) => ({ type: item.type as CategoryType, name: parseCategoryName({ name: item.name }) }),
  async create(input, local) {
    const created = await local.categories.create(local.account, input.type, input.name);
    await local.record('category', 'create', created.id, null, created);
  },
  // Matched by type and name, a category has nothing else to bring in line.
  update: undefined,
};

interface GroupInput {
  name: string;
  access_scopes: unknown;
  apps: string[];
  hosts: string[];
}

const groups: ResourceKind<GroupInput> = {
  kind: 'group',
  // apps and hosts come from a Logstead source (Mezmo's groups have none); dropping them would widen the group.
  fields: { carried: ['name', 'access_scopes', 'apps', 'hosts'], ignored: ['id', 'groupId', 'account', 'members', 'created', 'modified', '_created', '_modified', 'admits'] },
  read: (source) => source.list('/v1/config/groups'),
  async readLocal(local) {
    return new Map((await local.groups.list(local.account)).map((group) => [group.name.trim(), group.id]));
  },
  key: (item) => (text(item.name)?.trim() ? { key: text(item.name)!.trim(), name: text(item.name)!.trim() } : undefined),
  check: (item) => parseGroupCreate({ name: item.name, access_scopes: item.access_scopes ?? '', apps: item.apps ?? [], hosts: item.hosts ?? [] }),
  async create(input, local) {
    const created = await local.groups.create(local.account, input);
    await local.record('group', 'create', created.id, null, created);
  },
  async unchanged(id, input, local) {
    const group = await local.groups.get(local.account, id);
    return group !== undefined && canonical([group.access_scopes, group.apps, group.hosts]) === canonical([input.access_scopes, input.apps, input.hosts]);
  },
  async update(id, input, local) {
    const before = await local.groups.get(local.account, id);
    const scopes = new ScopeFollower(local.db, local.members, local.views);
    const members = await scopes.membersOf(id);
    // As an operator (an owner), but never letting a member see every line unasked: that item is refused.
    const change = { access_scopes: input.access_scopes, apps: input.apps, hosts: input.hosts };
    const after = await answeringRefusals({ role: 'owner', scope: null }, () => local.groups.update(local.account, id, change, { by: 'owner' }));
    // As a PATCH of the scope does: the views its members saved follow their new scope.
    await scopes.allOf(members);
    await local.record('group', 'update', id, before, after);
  },
};

interface PresetInput {
  name: string;
  channels: Array<Omit<Channel, 'alertid'>>;
}

const presets: ResourceKind<PresetInput> = {
  kind: 'preset',
  fields: { carried: ['name', 'channels'], ignored: ['presetid', 'account', '_created', '_modified', 'orgs'] },
  read: (source) => source.list('/v1/config/presetalert'),
  async readLocal(local) {
    return new Map((await local.presets.list(local.account)).map((preset) => [preset.name.trim(), preset.presetid]));
  },
  key: (item) => (text(item.name)?.trim() ? { key: text(item.name)!.trim(), name: text(item.name)!.trim() } : undefined),
  check: (item, _context, partly) => parsePresetBody({ name: item.name, channels: carryChannels(item.channels, partly) }),
  async create(input, local) {
    const created = await local.presets.create(local.account, input.name, withAlertIds(input.channels));
    await local.record('presetalert', 'create', created.presetid, null, created);
  },
  async unchanged(id, input, local) {
    const preset = await local.presets.get(local.account, id);
    return preset !== undefined && preset.name === input.name && canonical(importedChannels(input.channels, preset.channels)) === canonical(preset.channels);
  },
  async update(id, input, local) {
    const before = await local.presets.get(local.account, id);
    // An unchanged channel keeps its alertid, and so its alert window.
    const after = await local.presets.replace(local.account, id, input.name, importedChannels(input.channels, before?.channels ?? []));
    await local.record('presetalert', 'update', id, before, after);
  },
};

interface ViewInput {
  body: ReturnType<typeof parseViewBody>;
  /** The name of the local preset alert to attach, resolved to its id when written. */
  presetName: string | null;
}

const views: ResourceKind<ViewInput> = {
  kind: 'view',
  fields: {
    carried: ['name', 'query', 'hosts', 'apps', 'levels', 'tags', 'category', 'description', 'channels', 'presetids', 'presetid'],
    ignored: ['viewid', 'account', 'orgs', '_created', '_modified'],
  },
  read: (source) => source.list('/v1/config/view'),
  async readLocal(local) {
    return new Map((await local.views.list(local.account)).map((view) => [view.name.trim(), view.viewid]));
  },
  key: (item) => (text(item.name)?.trim() ? { key: text(item.name)!.trim(), name: text(item.name)!.trim() } : undefined),
  check(item, context, partly) {
    // A view's GET shows its preset's channels too (compat reference §5.2): those stay with the preset.
    const presetIds = [...(Array.isArray(item.presetids) ? item.presetids : []), ...(text(item.presetid) ? [item.presetid] : [])].filter((id): id is string => typeof id === 'string' && id !== '');
    const sourcePresets = context.source.get('preset') ?? [];
    const preset = presetIds.length ? sourcePresets.find((candidate) => candidate.presetid === presetIds[0]) : undefined;
    let presetName: string | null = null;
    if (presetIds.length && !preset) partly('preset alert', `the source did not list the preset alert ${presetIds[0]} it names`);
    if (preset) {
      const name = text(preset.name)?.trim() ?? '';
      if (context.willExist.get('preset')?.has(name)) presetName = name;
      else partly('preset alert', `its preset alert "${name}" is not carried over`);
    }
    if (presetIds.length > 1) partly('preset alerts', `Logstead attaches one preset alert to a view; only the first is kept`);
    const presetAlertIds = new Set((Array.isArray(preset?.channels) ? preset.channels : []).map((channel: { alertid?: unknown }) => channel?.alertid).filter(Boolean));
    const own = Array.isArray(item.channels) ? item.channels.filter((channel) => !(channel && presetAlertIds.has(channel.alertid))) : item.channels;
    const channels = carryChannels(own, partly);
    // Categories are views' categories; one that is not carried over is left off the view.
    const knownCategories = context.willExist.get('category') ?? new Set();
    const category = (Array.isArray(item.category) ? item.category : []).filter((name): name is string => typeof name === 'string' && name.trim() !== '');
    const kept = category.filter((name) => knownCategories.has(`views/${name.trim().toLowerCase()}`));
    for (const name of category) if (!kept.includes(name)) partly(`category "${name}"`, 'the source did not list this category, or it is not carried over');
    const body = parseViewBody({
      name: item.name,
      query: item.query ?? undefined,
      hosts: item.hosts ?? undefined,
      apps: item.apps ?? undefined,
      levels: item.levels ?? undefined,
      tags: item.tags ?? undefined,
      description: item.description ?? undefined,
      category: kept,
      channels,
    });
    return { body, presetName };
  },
  async create(input, local) {
    const created = await local.views.create(local.account, await viewColumns(input, local, []));
    await local.record('view', 'create', created.viewid, null, created);
  },
  async unchanged(id, input, local) {
    const view = await local.views.get(local.account, id);
    if (!view) return false;
    let wanted;
    try {
      wanted = await viewColumns(input, local, view.channels);
    } catch {
      return false; // a category still to be created: the view changes
    }
    const stored = { name: view.name, filters: view.filters, categoryIds: view.categoryIds, presetid: view.presetid, channels: view.channels, accessScope: view.accessScope, savedBy: view.savedBy };
    return canonical({ ...wanted, categoryIds: [...wanted.categoryIds].sort() }) === canonical({ ...stored, categoryIds: [...stored.categoryIds].sort() });
  },
  async update(id, input, local) {
    const before = await local.views.get(local.account, id);
    const after = await local.views.replace(local.account, id, await viewColumns(input, local, before?.channels ?? []));
    await local.record('view', 'update', id, before, after);
  },
};

/**
 * Imported channels: an unchanged one keeps its alertid (and so its alert window) and its setter;
 * a new or changed target is the operator's, of full rights.
 */
const importedChannels = (channels: Array<Omit<Channel, 'alertid'>>, previous: Channel[]) => withSetters(withAlertIds(channels, previous), previous, undefined);

async function viewColumns(input: ViewInput, local: LocalConfig, previous: Channel[]) {
  const preset = input.presetName === null ? undefined : (await local.presets.list(local.account)).find((candidate) => candidate.name.trim() === input.presetName);
  return {
    name: input.body.name,
    filters: viewFilters(input.body),
    categoryIds: await local.categories.idsForNames(local.account, input.body.category ?? []),
    presetid: preset?.presetid ?? null,
    channels: importedChannels(input.body.channels ?? [], previous),
    // Imported by the operator, as a service key saves: the alerts see the whole organisation.
    accessScope: null,
    savedBy: null,
  };
}

interface MemberInput {
  email: string;
  role: 'admin' | 'member' | 'readonly';
  /** Names of local groups. */
  groups: string[];
}

const members: ResourceKind<MemberInput> = {
  kind: 'member',
  fields: { carried: ['email', 'role', 'groups'], ignored: ['id', 'account', 'active', 'lastSignIn', 'created', 'modified', 'name', '_created', '_modified'] },
  read: (source) => source.list('/v1/config/members'),
  async readLocal(local) {
    return new Map((await local.members.list(local.account)).map((member) => [member.email, member.email]));
  },
  key: (item) => (text(item.email)?.trim() ? { key: normaliseEmail(text(item.email)!), name: normaliseEmail(text(item.email)!) } : undefined),
  check(item, context, partly) {
    let role = text(item.role)?.trim().toLowerCase();
    if (role === 'owner') {
      partly('role owner', 'an owner is made by an operator (`logstead member add <account> <email> --role owner`); imported as admin');
      role = 'admin';
    }
    // A source names groups by id (Logstead, Mezmo) or by name: both are looked up among the source's groups.
    const sourceGroups = context.source.get('group') ?? [];
    const names: string[] = [];
    for (const ref of Array.isArray(item.groups) ? item.groups : []) {
      const group = sourceGroups.find((candidate) => candidate.id === ref || candidate.groupId === ref) ?? sourceGroups.find((candidate) => candidate.name === ref);
      const name = text(group?.name)?.trim() ?? (typeof ref === 'string' ? ref : JSON.stringify(ref));
      if (context.willExist.get('group')?.has(name)) names.push(name);
      else partly(`group "${name}"`, 'the source did not list this group, or it is not carried over');
    }
    const checked = parseMemberCreate({ email: item.email, role, groups: names });
    return { email: checked.email, role: checked.role, groups: checked.groups };
  },
  async create(input, local) {
    const groupIds = (await local.groups.resolve(local.account, input.groups)).ids;
    const row = await local.members.create(local.account, { email: input.email, role: input.role, groups: groupIds });
    const after = await local.members.get(local.account, row.email);
    await local.record('member', 'create', row.email, null, after);
    // No invitation e-mail: the operator hands out the link, as `logstead member add` prints it.
    const token = await new OneTimeLinks(local.db).issue(local.account, 'invite', row.id, local.links.inviteHours * 3_600_000);
    return { link: { email: row.email, link: passwordLink(local.links.publicUrl, token) } };
  },
  async unchanged(email, input, local) {
    const member = await local.members.get(local.account, email);
    if (!member) return false;
    const { ids, unknown } = await local.groups.resolve(local.account, input.groups);
    const sameRole = member.role === 'owner' || member.role === input.role;
    return sameRole && unknown.length === 0 && canonical([...member.groups].sort()) === canonical([...ids].sort());
  },
  async update(email, input, local) {
    const before = await local.members.row(local.account, email);
    if (!before) return;
    const groupIds = (await local.groups.resolve(local.account, input.groups)).ids;
    // A local owner stays one: only an operator changes an owner's role.
    const role = before.role === 'owner' ? undefined : input.role;
    const beforeSummary = await local.members.get(local.account, email);
    const updated = await answeringRefusals({ role: 'owner', scope: null }, () => local.members.update(local.account, email, { role, groups: groupIds }, { by: 'owner' }));
    if (updated?.demoted) await new Sessions(local.db).endForMember(before.id);
    await new ScopeFollower(local.db, local.members, local.views).member(before.id);
    await local.record('member', 'update', before.email, beforeSummary, updated?.member);
  },
};

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

const exclusions: ResourceKind<ExclusionRuleFields> = {
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

const indexRate: ResourceKind<IndexRateConfig> = {
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

/** Fields of a source's graph that are read; any other is reported. */
const GRAPH_FIELDS = ['graphId', 'title', 'query', 'apps', 'hosts', 'levels', 'tags', 'measure', 'breakdown'];

/**
 * A board's graphs, each checked alone by the routes' rules: a graph Logstead cannot draw (a
 * measure it lacks, a search that does not parse, a shape it does not know) is left behind with
 * its reason and the rest of the board still comes.
 */
function carryGraphs(raw: unknown, partly: (part: string, reason: string) => void): Array<GraphSpec & { graphId?: string }> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    partly('graphs', 'not a list');
    return [];
  }
  const carried: Array<GraphSpec & { graphId?: string }> = [];
  raw.forEach((graph, index) => {
    const part = `graph ${index + 1}${graph && typeof graph === 'object' && typeof graph.title === 'string' ? ` (${graph.title})` : ''}`;
    if (!graph || typeof graph !== 'object' || Array.isArray(graph)) return partly(part, 'not an object');
    const dropped = Object.keys(graph).filter((field) => !GRAPH_FIELDS.includes(field));
    try {
      const checked = validate<GraphSpec & { graphId?: string }>(graphSchema, graph);
      const problems = graphProblems(checked, []);
      if (problems.length) throw errors.validationFailed(problems);
      carried.push(checked);
      if (dropped.length) partly(`${part}: ${dropped.join(', ')}`, 'Logstead graphs have no such settings');
    } catch (error) {
      if (!isApiError(error)) throw error;
      partly(part, reasonOf(error));
    }
  });
  return carried;
}

const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** Graphs as compared for "unchanged": without the ids a source may not give. */
const graphsWithoutIds = (graphs: Array<{ graphId?: string }>) => graphs.map(({ graphId: _id, ...graph }) => graph);

const boards: ResourceKind<BoardBody> = {
  kind: 'board',
  // Mezmo's boards are known only from third-party clients, which name the title `title` and the id `boardid`.
  fields: { carried: ['name', 'title', 'category', 'graphs'], ignored: ['boardId', 'boardid', 'boardID', 'id', 'account', '_created', '_modified', 'created', 'modified'] },
  async read(source) {
    try {
      return await source.list('/v1/config/board');
    } catch (error) {
      // Mezmo's boards API is not documented: a source that does not answer it has no boards to carry.
      if (error instanceof SourceReadError && error.status === 404) return [];
      throw error;
    }
  },
  async readLocal(local) {
    return new Map((await new Boards(local.db).list(local.account)).map((board) => [board.name.trim(), board.boardId]));
  },
  key(item) {
    const name = (text(item.name) ?? text(item.title))?.trim();
    return name ? { key: name, name } : undefined;
  },
  check(item, context, partly) {
    // A board has one category, of type boards; one that is not carried over is left off.
    const named = Array.isArray(item.category) ? item.category.find((name) => typeof name === 'string' && name.trim() !== '') : text(item.category);
    let category: string | null = null;
    if (typeof named === 'string' && named.trim() !== '') {
      if (context.willExist.get('category')?.has(`boards/${named.trim().toLowerCase()}`)) category = named.trim();
      else partly(`category "${named}"`, 'the source did not list this category, or it is not carried over');
    }
    return parseBoardBody({ name: item.name ?? item.title, category, graphs: carryGraphs(item.graphs, partly) });
  },
  async create(input, local) {
    const store = new Boards(local.db);
    const created = await store.create(local.account, await boardColumns(local.account, input, local.categories));
    await local.record('board', 'create', created.boardId, null, await presentBoard(created, local.categories));
  },
  async unchanged(id, input, local) {
    const board = await new Boards(local.db).get(local.account, id);
    if (!board) return false;
    const wanted = await boardColumns(local.account, input, local.categories).catch(() => undefined);
    if (!wanted) return false; // a category still to be created: the board changes
    return canonical([wanted.name, wanted.categoryId, graphsWithoutIds(wanted.graphs)]) === canonical([board.name, board.categoryId, graphsWithoutIds(board.graphs)]);
  },
  async update(id, input, local) {
    const store = new Boards(local.db);
    const before = await store.get(local.account, id);
    // A graph the source gives no id keeps the id of the graph in its place, so links to it still work.
    const graphs = input.graphs.map((graph, at) => ({ ...graph, graphId: graph.graphId ?? before?.graphs[at]?.graphId }));
    const after = await store.replace(local.account, id, await boardColumns(local.account, { ...input, graphs }, local.categories));
    if (after) await local.record('board', 'update', id, before && (await presentBoard(before, local.categories)), await presentBoard(after, local.categories));
  },
};

/**
 * What the importer carries, in the order it writes: what a later kind refers to comes first
 * (views name categories and presets, boards name categories, members name groups). A new kind is one more entry here.
 */
export const RESOURCE_KINDS: ResourceKind<any>[] = [categories, groups, presets, views, boards, members, exclusions, indexRate];
