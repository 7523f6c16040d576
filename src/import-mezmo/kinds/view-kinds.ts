import { validate } from '../../http/validation.js';
import { type Channel, INTEGRATIONS, channelsSchema, prepareChannels, withAlertIds, withSetters } from '../../views/channels.js';
import { parsePresetBody } from '../../views/preset-routes.js';
import { parseViewBody, viewFilters } from '../../views/view-routes.js';
import { type SourceItem, LocalConfig, type ResourceKind, canonical, text, reasonOf } from './resource-kind.js';

/* Views and preset alerts, and the channels both carry. */

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

interface PresetInput {
  name: string;
  channels: Array<Omit<Channel, 'alertid'>>;
}

export const presets: ResourceKind<PresetInput> = {
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

export const views: ResourceKind<ViewInput> = {
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
