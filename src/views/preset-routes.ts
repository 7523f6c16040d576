import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import { type Channel, channelForRead, channelForWrite, channelsSchema, prepareChannels, withAlertIds } from './channels.js';
import type { Preset } from './presets.js';
import { validate } from '../http/validation.js';
import type { ViewRoutesDeps } from './deps.js';

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

  const readBody = (request: FastifyRequest, previous: Channel[] = []) => {
    const body = parsePresetBody(request.body);
    return { name: body.name, channels: withAlertIds(body.channels, previous) };
  };

  const forRead = (preset: Preset) => ({ ...preset, channels: preset.channels.map(channelForRead) });
  const forWrite = (preset: Preset) => ({ name: preset.name, channels: preset.channels.map(channelForWrite), presetid: preset.presetid });

  app.get('/v1/config/presetalert', { config: { permission: 'read' } }, async (request) => (await presets.list(await auth.account(request))).map(forRead));

  app.get<{ Params: { presetid: string } }>('/v1/config/presetalert/:presetid', { config: { permission: 'read' } }, async (request) => {
    const preset = await presets.get(await auth.account(request), request.params.presetid);
    if (!preset) throw errors.notFound();
    return forRead(preset);
  });

  app.post('/v1/config/presetalert', { config: { permission: 'write', audit: 'presetalert' } }, async (request) => {
    const account = await auth.account(request);
    const { name, channels } = readBody(request);
    return forWrite(await presets.create(account, name, channels));
  });

  app.put<{ Params: { presetid: string } }>('/v1/config/presetalert/:presetid', { config: { permission: 'write', audit: 'presetalert' } }, async (request) => {
    const account = await auth.account(request);
    const existing = await presets.get(account, request.params.presetid);
    if (!existing) throw errors.notFound();
    const { name, channels } = readBody(request, existing.channels);
    const replaced = await presets.replace(account, request.params.presetid, name, channels);
    if (!replaced) throw errors.notFound();
    return forWrite(replaced);
  });

  app.delete<{ Params: { presetid: string } }>('/v1/config/presetalert/:presetid', { config: { permission: 'write', audit: 'presetalert' } }, async (request) => {
    if (!(await presets.delete(await auth.account(request), request.params.presetid))) throw errors.notFound();
    return { deleted: true };
  });
}
