import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import { type Channel, channelForRead, channelForWrite, channelsSchema, prepareChannels, restoreMasked, withAlertIds, withSetters } from './channels.js';
import type { Preset } from './presets.js';
import { validate } from '../http/validation.js';
import type { ViewRoutesDeps } from './deps.js';
import { type Principal, setterOf } from '../http/service-auth.js';
import { SetterLookup } from './setters.js';
import { takeoverRoute } from './takeover.js';

const presetSchema = Joi.object({
  name: Joi.string().trim().min(1).max(512).required(),
  channels: channelsSchema.default([]),
});

/** Checks a preset alert as a client sends it; shared with the importer (import-mezmo). */
export function parsePresetBody(raw: unknown): { name: string; channels: Array<Omit<Channel, 'alertid'>> } {
  return validate<{ name: string; channels: Array<Omit<Channel, 'alertid'>> }>(
    presetSchema,
    raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...raw, channels: prepareChannels((raw as Record<string, unknown>).channels) } : raw,
  );
}

export async function presetRoutes(app: FastifyInstance, deps: ViewRoutesDeps): Promise<void> {
  const { auth, presets } = deps;

  /** A checked body; a channel whose target changed (or is new) gets the writer as its setter. */
  const readBody = (request: FastifyRequest, writer: Principal, previous: Channel[] = []) => {
    const body = parsePresetBody(request.body);
    return { name: body.name, channels: withSetters(withAlertIds(restoreMasked(body.channels, previous), previous), previous, setterOf(writer)) };
  };

  /** Each channel with its setter; a readonly reader sees the secrets masked. */
  const described = (preset: Preset, format: (channel: Channel) => Record<string, unknown>, setters: SetterLookup) =>
    Promise.all(preset.channels.map((channel) => setters.described(channel, format(channel))));
  const forRead = async (preset: Preset, reader: Principal, setters = new SetterLookup(deps.setters)) => ({
    ...preset,
    channels: await described(preset, (channel) => channelForRead(channel, reader.role === 'readonly'), setters),
  });
  const forWrite = async (preset: Preset) => ({ name: preset.name, channels: await described(preset, channelForWrite, new SetterLookup(deps.setters)), presetid: preset.presetid });

  app.get('/v1/config/presetalert', { config: { permission: 'read' } }, async (request) => {
    const principal = await auth.principal(request);
    const setters = new SetterLookup(deps.setters);
    return Promise.all((await presets.list(principal.account)).map((preset) => forRead(preset, principal, setters)));
  });

  app.get<{ Params: { presetid: string } }>('/v1/config/presetalert/:presetid', { config: { permission: 'read' } }, async (request) => {
    const principal = await auth.principal(request);
    const preset = await presets.get(principal.account, request.params.presetid);
    if (!preset) throw errors.notFound();
    return forRead(preset, principal);
  });

  app.post('/v1/config/presetalert', { config: { permission: 'write', audit: 'presetalert' } }, async (request) => {
    const principal = await auth.principal(request);
    const { name, channels } = readBody(request, principal);
    return forWrite(await presets.create(principal.account, name, channels));
  });

  app.put<{ Params: { presetid: string } }>('/v1/config/presetalert/:presetid', { config: { permission: 'write', audit: 'presetalert' } }, async (request) => {
    const principal = await auth.principal(request);
    const { account } = principal;
    const existing = await presets.get(account, request.params.presetid);
    if (!existing) throw errors.notFound();
    const { name, channels } = readBody(request, principal, existing.channels);
    const replaced = await presets.replace(account, request.params.presetid, name, channels);
    if (!replaced) throw errors.notFound();
    return forWrite(replaced);
  });

  // An admin takes over a preset's channel: they become the setter of its target (issue 39).
  takeoverRoute(app, auth, '/v1/config/presetalert/:presetid/alerts/:alertid/takeover', 'presetalert', async (principal, presetid, alertid) => {
    const preset = await presets.get(principal.account, presetid);
    if (!preset?.channels.some((channel) => channel.alertid === alertid)) return undefined;
    const channels = preset.channels.map((channel) => (channel.alertid === alertid ? { ...channel, setBy: setterOf(principal) } : channel));
    const replaced = await presets.replace(principal.account, presetid, preset.name, channels);
    return replaced && forRead(replaced, principal);
  });

  app.delete<{ Params: { presetid: string } }>('/v1/config/presetalert/:presetid', { config: { permission: 'write', audit: 'presetalert' } }, async (request) => {
    if (!(await presets.delete(await auth.account(request), request.params.presetid))) throw errors.notFound();
    return { deleted: true };
  });
}
