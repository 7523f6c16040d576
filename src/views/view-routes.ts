import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import { QueryParseError, parseQuery } from '../query/parser.js';
import { type Channel, channelForRead, channelForWrite, channelsSchema, prepareChannels, restoreMasked, withAlertIds, withSetters } from './channels.js';
import { channelWarnings } from './channel-warnings.js';
import { fieldLabel } from '../http/field-labels.js';
import { validate } from '../http/validation.js';
import type { View, ViewFilters } from './views.js';
import type { ViewRoutesDeps } from './deps.js';
import { type Principal, setterOf } from '../http/service-auth.js';
import { SetterLookup, legacySetter } from './setters.js';
import { setterWarnings } from './setter-warnings.js';
import { takeoverRoute } from './takeover.js';

const list = Joi.array().items(Joi.string().max(512)).max(1000);

const viewSchema = Joi.object({
  name: Joi.string().trim().min(1).max(512).required(),
  query: Joi.string().allow('').max(10_000),
  hosts: list,
  apps: list,
  levels: list,
  tags: list,
  category: Joi.array().items(Joi.string().trim().max(256)).max(100),
  presetid: Joi.string().max(64),
  description: Joi.string().allow('').max(4096),
  channels: channelsSchema,
}).or('query', 'hosts', 'apps', 'levels', 'tags');

export interface ViewBody {
  name: string;
  query?: string;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
  category?: string[];
  presetid?: string;
  description?: string;
  channels?: Array<Omit<Channel, 'alertid'>>;
}

/**
 * Checks a view as a client sends it (POST or PUT body) without touching the store: the shape, and
 * that its query parses. Presets and categories it names are resolved by the caller. Shared with
 * the importer (import-mezmo), so an imported view passes the same rules as one sent to the API.
 */
export function parseViewBody(raw: unknown): ViewBody {
  const object = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  const prepared: unknown = object ? { ...object, channels: prepareChannels(object.channels) } : raw;
  // An empty query or list filters nothing, so it does not count towards "at least one of".
  if (prepared && typeof prepared === 'object') {
    for (const key of ['query', 'hosts', 'apps', 'levels', 'tags']) {
      const value = (prepared as Record<string, unknown>)[key];
      if (value === '' || (Array.isArray(value) && value.length === 0)) delete (prepared as Record<string, unknown>)[key];
    }
  }
  const body = validate<ViewBody>(viewSchema, prepared);
  if (body.query) {
    try {
      parseQuery(body.query);
    } catch (error) {
      if (!(error instanceof QueryParseError)) throw error;
      throw errors.validationFailed([{ message: `"query" is not a valid search: ${error.message}`, key: 'query', field: fieldLabel(['query']) }]);
    }
  }
  return body;
}

/** The filters a view keeps, from a checked body. */
export function viewFilters(body: ViewBody): ViewFilters {
  const filters: ViewFilters = {};
  for (const key of ['query', 'hosts', 'apps', 'levels', 'tags', 'description'] as const) {
    if (body[key] !== undefined) (filters as Record<string, unknown>)[key] = body[key];
  }
  return filters;
}

export async function viewRoutes(app: FastifyInstance, deps: ViewRoutesDeps): Promise<void> {
  const { auth, views, presets, categories } = deps;

  /**
   * Validates a POST or PUT body into what the store keeps; refuses unknown presets and categories.
   * Each channel keeps the setter of its unchanged target, or gets the writer as setter.
   */
  const readBody = async (account: string, principal: Principal, request: FastifyRequest, existing?: View) => {
    const body = parseViewBody(request.body);
    const previous = existing?.channels ?? [];
    const sent = restoreMasked(body.channels ?? [], previous);
    if (body.presetid && !(await presets.get(account, body.presetid))) {
      throw errors.validationFailed([{ message: `"presetid" must be the id of an existing preset alert`, key: 'presetid', field: fieldLabel(['presetid']) }]);
    }
    const filters = viewFilters(body);
    return {
      name: body.name,
      filters,
      categoryIds: await categories.idsForNames(account, (body.category ?? []).filter(Boolean)),
      presetid: body.presetid ?? null,
      channels: withSetters(withAlertIds(sent, previous), previous, setterOf(principal), legacySetter(existing?.savedBy ?? null)),
      // Whoever saves a view lends it their scope, and it follows theirs from then on: its alerts
      // never count or send what they cannot see.
      accessScope: principal.scope,
      savedBy: principal.member?.id ?? null,
    };
  };

  /**
   * A view as clients read it, in the read or the write dialect of its channels, each with its
   * setter (and why it is held, if it is). A readonly reader sees the channels' secrets masked.
   */
  const present = async (view: View, dialect: 'read' | 'write', reader: Principal, setters = new SetterLookup(deps.setters)) => {
    const preset = view.presetid ? await presets.get(view.account, view.presetid) : undefined;
    const masked = reader.role === 'readonly';
    const format = (channel: Channel) => (dialect === 'read' ? channelForRead(channel, masked) : channelForWrite(channel));
    const own = view.channels.map((channel) => ({ ...channel, setBy: channel.setBy ?? legacySetter(view.savedBy) }));
    const channels = await Promise.all([...own, ...(preset?.channels ?? [])].map((channel) => setters.described(channel, format(channel))));
    return {
      viewid: view.viewid,
      name: view.name,
      query: view.filters.query ?? '',
      hosts: view.filters.hosts ?? [],
      apps: view.filters.apps ?? [],
      levels: view.filters.levels ?? [],
      tags: view.filters.tags ?? [],
      category: await categories.namesForIds(view.account, view.categoryIds),
      description: view.filters.description ?? '',
      // A preset's channels are shown on the view, as Mezmo does; the view's own come first.
      channels,
      presetids: preset ? [preset.presetid] : [],
      ...(dialect === 'write' && preset ? { presetid: preset.presetid } : {}),
      account: view.account,
      orgs: [],
      _created: view._created,
      _modified: view._modified,
    };
  };

  app.get('/v1/config/view', { config: { permission: 'read' } }, async (request) => {
    const principal = await auth.principal(request);
    const setters = new SetterLookup(deps.setters);
    return Promise.all((await views.list(principal.account)).map((view) => present(view, 'read', principal, setters)));
  });

  app.get<{ Params: { viewid: string } }>('/v1/config/view/:viewid', { config: { permission: 'read' } }, async (request) => {
    const principal = await auth.principal(request);
    const view = await views.get(principal.account, request.params.viewid);
    if (!view) throw errors.notFound();
    const setters = new SetterLookup(deps.setters);
    // Only those who may change the view are told of its alerts' setters' reach.
    const warnings = principal.role === 'readonly' ? [] : await setterWarnings(view, setters, deps.volume, principal.scope);
    return { ...(await present(view, 'read', principal, setters)), ...(warnings.length ? { warnings } : {}) };
  });

  /** The write answer, with warnings about channels that will not deliver when there are any. */
  const saved = async (view: View, writer: Principal) => {
    const setters = new SetterLookup(deps.setters);
    const warnings = [...(await channelWarnings(view.channels, deps.delivery)), ...(await setterWarnings(view, setters, deps.volume, writer.scope))].sort((a, b) => a.channel - b.channel);
    return { ...(await present(view, 'write', writer, setters)), ...(warnings.length ? { warnings } : {}) };
  };

  app.post('/v1/config/view', { config: { permission: 'write', audit: 'view' } }, async (request) => {
    const principal = await auth.principal(request);
    return saved(await views.create(principal.account, await readBody(principal.account, principal, request)), principal);
  });

  app.put<{ Params: { viewid: string } }>('/v1/config/view/:viewid', { config: { permission: 'write', audit: 'view' } }, async (request) => {
    const principal = await auth.principal(request);
    const { account } = principal;
    const existing = await views.get(account, request.params.viewid);
    if (!existing) throw errors.nothingToConfigure();
    const replaced = await views.replace(account, request.params.viewid, await readBody(account, principal, request, existing));
    if (!replaced) throw errors.nothingToConfigure();
    return saved(replaced, principal);
  });

  // An admin takes over a view's own channel: they become the setter of its target (issue 39).
  takeoverRoute(app, auth, '/v1/config/view/:viewid/alerts/:alertid/takeover', 'view', async (principal, viewid, alertid) => {
    const view = await views.get(principal.account, viewid);
    const channel = view?.channels.find((candidate) => candidate.alertid === alertid);
    if (!view || !channel) return undefined;
    const channels = view.channels.map((candidate) => (candidate === channel ? { ...candidate, setBy: setterOf(principal) } : candidate));
    const replaced = await views.replace(principal.account, viewid, { ...view, channels });
    return replaced && present(replaced, 'read', principal);
  });

  app.delete<{ Params: { viewid: string } }>('/v1/config/view/:viewid', { config: { permission: 'write', audit: 'view' } }, async (request) => {
    const account = await auth.account(request);
    if (!(await views.delete(account, request.params.viewid))) throw errors.notFound();
    return { deleted: true };
  });
}
