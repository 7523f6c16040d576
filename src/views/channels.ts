import Joi from 'joi';
import { nestedDeeperThan } from '../lib/json-depth.js';
import { newId } from '../lib/ids.js';

/** Alert channels, as views and preset alerts carry them (spec §2.5, compat reference §5.4–5.5). */

export const PRESENCE_INTERVALS = ['30', '1m', '5m', '15m', '30m', '1h', '6h', '12h', '24h', '25h'];
export const ABSENCE_INTERVALS = PRESENCE_INTERVALS.filter((interval) => interval !== '30');
export const WEBHOOK_METHODS = ['post', 'put', 'patch', 'get', 'delete'];
/** `pagerduty` is what real clients (the Terraform provider) send for incident paging. */
export const INTEGRATIONS = ['email', 'webhook', 'incidentpaging', 'pagerduty'];

export interface Channel {
  alertid: string;
  integration: string;
  operator: 'presence' | 'absence';
  triggerlimit: number;
  triggerinterval: string;
  immediate: boolean;
  terminal: boolean;
  emails?: string[];
  timezone?: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  bodyTemplate?: Record<string, unknown>;
  key?: string;
}

export const isPaging = (integration: string) => integration === 'incidentpaging' || integration === 'pagerduty';

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC';
  } catch {
    return false;
  }
}

const MAX_TEMPLATE_BYTES = 64 * 1024;
/** An HTTP token (RFC 9110): what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client sets itself; letting a channel set them would corrupt the request. */
const MANAGED_HEADERS = ['content-length', 'transfer-encoding', 'host', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection'];
const MAX_TEMPLATE_DEPTH = 20;

/** When an alert fires: the rule part of a channel, shared with the backtest (alerts/backtest-routes.ts). */
export const alertRuleKeys = {
  operator: Joi.string().valid('presence', 'absence').default('presence'),
  triggerlimit: Joi.number().integer().min(1).max(100_000).required(),
  triggerinterval: Joi.string().when('operator', {
    is: 'absence',
    then: Joi.valid(...ABSENCE_INTERVALS).default('15m'),
    otherwise: Joi.valid(...PRESENCE_INTERVALS).default('30'),
  }),
  immediate: Joi.boolean().default(false).when('operator', { is: 'absence', then: Joi.valid(false) }),
  terminal: Joi.boolean().default(true).when('operator', { is: 'absence', then: Joi.valid(true) }),
};

export const channelSchema = Joi.object({
  /** Sent back by clients that read it; an unknown one is ignored and a new one given. */
  alertid: Joi.string().max(64),
  integration: Joi.string().valid(...INTEGRATIONS).required(),
  ...alertRuleKeys,
  emails: Joi.when('integration', {
    is: 'email',
    then: Joi.array().items(Joi.string().email({ tlds: false })).min(1).max(100).required(),
    otherwise: Joi.forbidden(),
  }),
  timezone: Joi.when('integration', {
    is: 'email',
    then: Joi.string()
      .max(64)
      .custom((zone, helpers) => (isTimeZone(zone) ? zone : helpers.error('any.invalid')))
      .messages({ 'any.invalid': '{{#label}} must be a valid IANA time zone name, such as Europe/Berlin' }),
    otherwise: Joi.forbidden(),
  }),
  url: Joi.when('integration', {
    is: 'webhook',
    then: Joi.string()
      .max(2048)
      .uri({ scheme: ['http', 'https'] })
      .required()
      .messages({ 'string.uriCustomScheme': '{{#label}} must be a valid uri' }),
    otherwise: Joi.forbidden(),
  }),
  method: Joi.when('integration', {
    is: 'webhook',
    then: Joi.string().lowercase().valid(...WEBHOOK_METHODS).default('post'),
    otherwise: Joi.forbidden(),
  }),
  headers: Joi.when('integration', {
    is: 'webhook',
    then: Joi.object()
      .pattern(Joi.string().max(256), Joi.string().max(8192).pattern(/^[^\r\n\0]*$/).allow('').messages({ 'string.pattern.base': '{{#label}} must not contain line breaks' }))
      .max(50)
      // Names are checked here, not by the pattern: a key the pattern refused would only be dropped.
      .custom((headers: Record<string, string>, helpers) => {
        for (const name of Object.keys(headers)) {
          if (!HEADER_NAME.test(name)) return helpers.error('headers.name', { name });
          if (MANAGED_HEADERS.includes(name.toLowerCase())) return helpers.error('headers.managed', { name });
        }
        return headers;
      })
      .messages({
        'headers.name': '{{#label}} has "{{#name}}", which is not a valid HTTP header name',
        'headers.managed': '{{#label}} has "{{#name}}", which Logstead sets itself',
      }),
    otherwise: Joi.forbidden(),
  }),
  bodyTemplate: Joi.when('integration', {
    is: 'webhook',
    then: Joi.object()
      .unknown(true)
      .custom((template, helpers) => {
        if (nestedDeeperThan(template, MAX_TEMPLATE_DEPTH)) return helpers.error('object.depth');
        return Buffer.byteLength(JSON.stringify(template)) > MAX_TEMPLATE_BYTES ? helpers.error('object.size') : template;
      })
      .messages({
        'object.size': `{{#label}} must be at most ${MAX_TEMPLATE_BYTES / 1024} KB of JSON`,
        'object.depth': `{{#label}} must be nested at most ${MAX_TEMPLATE_DEPTH} levels deep`,
      }),
    otherwise: Joi.forbidden(),
  }),
  key: Joi.when('integration', {
    is: Joi.valid('incidentpaging', 'pagerduty').required(),
    then: Joi.string().max(256).required(),
    otherwise: Joi.forbidden(),
  }),
})
  .custom((channel, helpers) =>
    channel.operator === 'presence' && !channel.immediate && !channel.terminal ? helpers.error('channel.presence') : channel,
  )
  .messages({ 'channel.presence': '{{#label}} is a presence alert, so immediate or terminal must be true' });

export const channelsSchema = Joi.array().items(channelSchema).max(100);

/**
 * What clients send differs in small ways from what the schema checks: the Terraform provider sends
 * booleans as "true"/"false" (Joi converts those), empty strings for unset options, a number for
 * `triggerinterval`, and a JSON string for `bodyTemplate` when it round-trips a read.
 */
export function prepareChannels(raw: unknown): unknown {
  if (!Array.isArray(raw)) return raw;
  return raw.map((channel) => {
    if (channel === null || typeof channel !== 'object' || Array.isArray(channel)) return channel;
    const prepared: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(channel)) {
      if (value === '' || value === null) continue;
      prepared[key] = value;
    }
    if (typeof prepared.triggerinterval === 'number') prepared.triggerinterval = String(prepared.triggerinterval);
    if (typeof prepared.emails === 'string') prepared.emails = prepared.emails.split(',').map((email) => email.trim());
    if (typeof prepared.bodyTemplate === 'string') {
      try {
        prepared.bodyTemplate = JSON.parse(prepared.bodyTemplate);
      } catch {
        // left as a string: the schema reports that it must be an object
      }
    }
    return prepared;
  });
}

const sameSettings = (a: Omit<Channel, 'alertid'>, b: Omit<Channel, 'alertid'>) => {
  const { alertid: _a, ...left } = a as Channel;
  const { alertid: _b, ...right } = b as Channel;
  return JSON.stringify(left, Object.keys(left).sort()) === JSON.stringify(right, Object.keys(right).sort());
};

/**
 * Gives each validated channel its server-side alertid. On a replace, a channel keeps the id of the
 * one it replaces (named by `alertid`, or identical in every setting), so that an unchanged alert
 * keeps its window and does not fire twice because its view was renamed.
 */
export function withAlertIds(channels: Array<Omit<Channel, 'alertid'> & { alertid?: string }>, previous: Channel[] = []): Channel[] {
  const available = new Map(previous.map((channel) => [channel.alertid, channel]));
  const claimed = channels.map((channel) => (channel.alertid && available.has(channel.alertid) ? channel.alertid : undefined));
  for (const id of claimed) if (id) available.delete(id);
  return channels.map((channel, index) => {
    const { alertid: _sent, ...settings } = channel;
    let alertid = claimed[index];
    if (!alertid) {
      const twin = [...available.values()].find((old) => sameSettings(old, settings));
      if (twin) available.delete(twin.alertid);
      alertid = twin?.alertid ?? newId();
    }
    return { alertid, ...settings };
  });
}

/**
 * The two response dialects (compat reference §5.4): reads return `triggerinterval` as a string and
 * `emails` as an array; writes echo `triggerinterval` as a number where it is one and `emails` as a
 * string. `bodyTemplate` is always a JSON string.
 */
const FIELD_ORDER: Array<keyof Channel> = [
  'alertid', 'integration', 'operator', 'triggerlimit', 'triggerinterval', 'immediate', 'terminal',
  'emails', 'timezone', 'url', 'method', 'headers', 'bodyTemplate', 'key',
];

export function channelForRead(channel: Channel): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FIELD_ORDER) if (channel[field] !== undefined) out[field] = channel[field];
  if (channel.bodyTemplate) out.bodyTemplate = JSON.stringify(channel.bodyTemplate);
  return out;
}

export function channelForWrite(channel: Channel): Record<string, unknown> {
  const out = channelForRead(channel);
  if (/^\d+$/.test(channel.triggerinterval)) out.triggerinterval = Number(channel.triggerinterval);
  if (channel.emails) out.emails = channel.emails.join(',');
  return out;
}
