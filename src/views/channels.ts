import Joi from 'joi';
import { errors } from '../http/errors.js';
import { nestedDeeperThan } from '../lib/json-depth.js';
import { newId } from '../lib/ids.js';

/** Alert channels, as views and preset alerts carry them (spec §2.5, compat reference §5.4–5.5). */

export const PRESENCE_INTERVALS = ['30', '1m', '5m', '15m', '30m', '1h', '6h', '12h', '24h', '25h'];
export const ABSENCE_INTERVALS = PRESENCE_INTERVALS.filter((interval) => interval !== '30');
export const WEBHOOK_METHODS = ['post', 'put', 'patch', 'get', 'delete'];
/**
 * `pagerduty` is what real clients (the Terraform provider) send for incident paging; `slack`,
 * `opsgenie` and `victorops` are Mezmo's (compat reference §5.4, §6.6); `teams` is Logstead's.
 */
export const INTEGRATIONS = ['email', 'webhook', 'incidentpaging', 'pagerduty', 'slack', 'opsgenie', 'victorops', 'teams'];
export const OPSGENIE_REGIONS = ['us', 'eu'];
/** Integrations whose `url` is the secret itself (an incoming webhook: whoever has it may post). */
const URL_IS_SECRET = ['slack', 'teams'];
/** Integrations that close what they opened when the lines stop (auto-resolve, compat reference §6.5). */
export const RESOLVABLE = ['opsgenie', 'victorops'];

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
  /** Slack: the colour bar beside the message, as `#rrggbb`. */
  color?: string;
  /** OpsGenie: which of its API endpoints the key belongs to. */
  region?: string;
  /** VictorOps: the routing key that picks the team. */
  routingkey?: string;
  /** OpsGenie, VictorOps: close what fired once a window of `autoresolveinterval` has fewer than `autoresolvelimit` lines. */
  autoresolve?: boolean;
  autoresolveinterval?: string;
  autoresolvelimit?: number;
  /**
   * Who set this channel's target: `member:<id>` (a person, or a key a member made) or a key's id
   * (a key of full rights). What it carries is bounded by that setter's scope now (issue 39).
   * Absent on channels saved before setters were recorded, and on channels an operator imported.
   */
  setBy?: string;
}

/** What a masked secret reads as; sent back unchanged, it keeps the stored secret. */
export const MASK = '********';

export const isPaging = (integration: string) => integration === 'incidentpaging' || integration === 'pagerduty';
/** Whether a channel closes what it opened when the lines stop. */
export const resolves = (channel: Pick<Channel, 'integration' | 'autoresolve'>) => RESOLVABLE.includes(channel.integration) && channel.autoresolve === true;

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

const webhookUrl = Joi.string()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .required()
  .messages({ 'string.uriCustomScheme': '{{#label}} must be a valid uri' });

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
    switch: [
      { is: 'webhook', then: webhookUrl },
      // A reader shown the mask sends it back: restoreMasked puts the stored address in its place.
      { is: Joi.valid(...URL_IS_SECRET).required(), then: webhookUrl.allow(MASK) },
    ],
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
    is: Joi.valid('incidentpaging', 'pagerduty', 'opsgenie', 'victorops').required(),
    then: Joi.string().max(256).required(),
    otherwise: Joi.forbidden(),
  }),
  color: Joi.when('integration', {
    is: 'slack',
    then: Joi.string().pattern(/^#[0-9a-fA-F]{6}$/).messages({ 'string.pattern.base': '{{#label}} must be a colour such as #d4b135' }),
    otherwise: Joi.forbidden(),
  }),
  region: Joi.when('integration', { is: 'opsgenie', then: Joi.string().lowercase().valid(...OPSGENIE_REGIONS).default('us'), otherwise: Joi.forbidden() }),
  routingkey: Joi.when('integration', {
    is: 'victorops',
    then: Joi.string().max(256).pattern(/^[^/?#]+$/).required().messages({ 'string.pattern.base': '{{#label}} must not contain /, ? or #' }),
    otherwise: Joi.forbidden(),
  }),
  autoresolve: Joi.when('integration', { is: Joi.valid(...RESOLVABLE).required(), then: Joi.boolean().default(false), otherwise: Joi.forbidden() }),
  autoresolveinterval: Joi.when('integration', {
    is: Joi.valid(...RESOLVABLE).required(),
    then: Joi.string().valid(...PRESENCE_INTERVALS).when('autoresolve', { is: true, then: Joi.required() }),
    otherwise: Joi.forbidden(),
  }),
  autoresolvelimit: Joi.when('integration', {
    is: Joi.valid(...RESOLVABLE).required(),
    then: Joi.number().integer().min(1).max(100_000).when('autoresolve', { is: true, then: Joi.required() }),
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
      // Read-only facts of a channel that clients send back with the rest of what they read.
      if (key === 'setBy' || key === 'setter' || key === 'held') continue;
      prepared[key] = value;
    }
    if (typeof prepared.triggerinterval === 'number') prepared.triggerinterval = String(prepared.triggerinterval);
    if (typeof prepared.autoresolveinterval === 'number') prepared.autoresolveinterval = String(prepared.autoresolveinterval);
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
  const { alertid: _a, setBy: _sa, ...left } = a as Channel;
  const { alertid: _b, setBy: _sb, ...right } = b as Channel;
  return JSON.stringify(left, Object.keys(left).sort()) === JSON.stringify(right, Object.keys(right).sort());
};

/** A channel's settings that say when it fires; every other setting says where and what it sends. */
const RULE_SETTINGS = new Set(['operator', 'triggerlimit', 'triggerinterval', 'immediate', 'terminal']);

/** Where a channel sends and what with: its settings but the rule's. */
function target(channel: Omit<Channel, 'alertid'>): string {
  const kept = Object.entries(channel).filter(([key]) => !RULE_SETTINGS.has(key) && key !== 'alertid' && key !== 'setBy');
  return JSON.stringify(kept.sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Records who set each channel's target. A channel whose target is unchanged (the same alertid,
 * the same destination and content settings) keeps its setter, whoever saved it this time: an
 * unscoped person's edit of a view does not widen what a scoped member's webhook receives. A new
 * target is the writer's. `legacySetter` stands for a channel saved before setters were recorded
 * (a view's last saver); `writer` undefined (an operator's import) records none: full rights.
 */
export function withSetters(channels: Channel[], previous: Channel[], writer: string | undefined, legacySetter?: string): Channel[] {
  const before = new Map(previous.map((channel) => [channel.alertid, channel]));
  return channels.map((channel) => {
    const { setBy: _sent, ...settings } = channel;
    const old = before.get(channel.alertid);
    const setBy = old && target(old) === target(settings) ? (old.setBy ?? legacySetter) : writer;
    return setBy === undefined ? settings : { ...settings, setBy };
  });
}

/**
 * Puts the stored secrets back where a client sent the mask (it read the channel masked and sent
 * it back): a header value or paging key of `MASK` keeps the secret of the channel with the same
 * alertid. A mask with nothing to stand for is refused, so `********` is never stored as a secret.
 */
export function restoreMasked<T extends Omit<Channel, 'alertid'> & { alertid?: string }>(channels: T[], previous: Channel[], label = 'channels'): T[] {
  const before = new Map(previous.map((channel) => [channel.alertid, channel]));
  return channels.map((channel, index) => {
    const old = channel.alertid === undefined ? undefined : before.get(channel.alertid);
    const unknown = (key: string) =>
      errors.validationFailed([{ message: `"${label}[${index}].${key}" is the mask ${MASK}: send the secret itself, or the channel's alertid to keep the stored one`, key: `${label}[${index}].${key}`, field: key }]);
    const restored = { ...channel };
    if (channel.key === MASK) {
      if (old?.key === undefined) throw unknown('key');
      restored.key = old.key;
    }
    if (channel.url === MASK && URL_IS_SECRET.includes(channel.integration)) {
      if (old?.url === undefined || old.integration !== channel.integration) throw unknown('url');
      restored.url = old.url;
    }
    if (channel.headers && Object.values(channel.headers).includes(MASK)) {
      restored.headers = Object.fromEntries(
        Object.entries(channel.headers).map(([name, value]) => {
          if (value !== MASK) return [name, value];
          const kept = old?.headers?.[name];
          if (kept === undefined) throw unknown(`headers.${name}`);
          return [name, kept];
        }),
      );
    }
    return restored;
  });
}

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
  'emails', 'timezone', 'url', 'method', 'headers', 'bodyTemplate', 'key', 'color', 'region', 'routingkey',
  'autoresolve', 'autoresolveinterval', 'autoresolvelimit',
];

/**
 * A channel as clients read it. `masked` (for a reader who may not change it, a readonly member)
 * shows its secrets as MASK: the webhook's header values, the paging, OpsGenie and VictorOps key,
 * and the Slack or Teams address (an incoming webhook's address is its credential).
 */
export function channelForRead(channel: Channel, masked = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FIELD_ORDER) if (channel[field] !== undefined) out[field] = channel[field];
  if (channel.bodyTemplate) out.bodyTemplate = JSON.stringify(channel.bodyTemplate);
  if (masked) {
    if (channel.headers) out.headers = Object.fromEntries(Object.keys(channel.headers).map((name) => [name, MASK]));
    if (channel.key !== undefined) out.key = MASK;
    if (channel.url !== undefined && URL_IS_SECRET.includes(channel.integration)) out.url = MASK;
  }
  return out;
}

export function channelForWrite(channel: Channel): Record<string, unknown> {
  const out = channelForRead(channel);
  if (/^\d+$/.test(channel.triggerinterval)) out.triggerinterval = Number(channel.triggerinterval);
  if (channel.autoresolveinterval && /^\d+$/.test(channel.autoresolveinterval)) out.autoresolveinterval = Number(channel.autoresolveinterval);
  if (channel.emails) out.emails = channel.emails.join(',');
  return out;
}
