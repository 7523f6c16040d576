import Joi from 'joi';
import { errors } from '../http/errors.js';
import type { ConfigKysely } from '../repository/open.js';

/** A webhook channel of the index-rate alert (Mezmo's: upper-case method, a JSON-object body template). */
export interface IndexRateWebhook {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  bodyTemplate?: Record<string, unknown>;
}

/** The index-rate alert as /v1/config/index-rate reads and writes it. */
export interface IndexRateConfig {
  max_lines: number | null;
  max_z_score: number | null;
  /** `separate`: either threshold fires it; `both`: only both together. */
  threshold_alert: 'separate' | 'both';
  frequency: 'hourly' | 'daily';
  enabled: boolean;
  channels: { email: string[]; pagerduty: string[]; slack: string[]; webhook: IndexRateWebhook[] };
  /** Who set where it sends (service-auth's setterOf); it sends only while that setter may read every line. Not shown. */
  setBy?: string;
}

/** Whether two configurations send to the same places with the same content. */
export const sameChannels = (a: IndexRateConfig, b: IndexRateConfig): boolean => JSON.stringify(a.channels) === JSON.stringify(b.channels);

/** What GET answers before the organisation has set one: off, with nothing to send to. */
export const UNSET: IndexRateConfig = {
  max_lines: null,
  max_z_score: null,
  threshold_alert: 'separate',
  frequency: 'hourly',
  enabled: false,
  channels: { email: [], pagerduty: [], slack: [], webhook: [] },
};

/** The tokens an index-rate webhook body may use; Mezmo refuses any other ("is not a valid token"). */
export const INDEX_RATE_TOKENS = ['lines', 'max_lines', 'z_score', 'max_z_score', 'frequency', 'period_start', 'period_end', 'url'] as const;

const TOKEN = /\{\{\s*([^}]*?)\s*\}\}/g;

function unknownTokens(template: unknown, found: string[] = []): string[] {
  if (typeof template === 'string') {
    for (const match of template.matchAll(TOKEN)) if (!(INDEX_RATE_TOKENS as readonly string[]).includes(match[1])) found.push(match[0]);
  } else if (Array.isArray(template)) {
    for (const item of template) unknownTokens(item, found);
  } else if (template !== null && typeof template === 'object') {
    for (const value of Object.values(template)) unknownTokens(value, found);
  }
  return found;
}

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const webhook = Joi.object({
  url: Joi.string().uri({ scheme: ['http', 'https'] }).required(),
  method: Joi.string().uppercase().valid('GET', 'POST', 'PUT', 'DELETE').default('POST'),
  headers: Joi.object().pattern(Joi.string().pattern(headerName), Joi.string().max(4096).pattern(/^[^\r\n]*$/)).default({}),
  // Sent as a JSON object (Terraform) or as the JSON text GET returns.
  bodyTemplate: Joi.alternatives().try(Joi.object(), Joi.string().max(65_536)),
});

const schema = Joi.object({
  max_lines: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).allow(null).default(null),
  max_z_score: Joi.number().greater(0).max(1000).allow(null).default(null),
  threshold_alert: Joi.string().valid('separate', 'both').required(),
  frequency: Joi.string().valid('hourly', 'daily').required(),
  enabled: Joi.boolean().required(),
  channels: Joi.object({
    email: Joi.array().items(Joi.string().email({ tlds: false })).max(50).default([]),
    pagerduty: Joi.array().items(Joi.string().min(1).max(256)).max(20).default([]),
    slack: Joi.array().items(Joi.string().uri({ scheme: ['http', 'https'] })).max(20).default([]),
    webhook: Joi.array().items(webhook).max(20).default([]),
  })
    // A channel kind Logstead lacks (Mezmo's four only) is refused by name, not dropped unseen.
    .prefs({ stripUnknown: false })
    .default({ email: [], pagerduty: [], slack: [], webhook: [] }),
});

const invalid = (message: string, key: string) => errors.validationFailed([{ message, key, field: key }]);

/** Validates a PUT body into the stored form; bad input is the config envelope's 400. */
export function readConfig(body: unknown, validate: <T>(schema: Joi.Schema, body: unknown) => T): IndexRateConfig {
  const config = validate<IndexRateConfig & { channels: { webhook: Array<IndexRateWebhook & { bodyTemplate?: unknown }> } }>(schema, body);
  if (config.threshold_alert === 'both' && (config.max_lines === null || config.max_z_score === null)) {
    throw invalid('"threshold_alert" both needs max_lines and max_z_score', 'threshold_alert');
  }
  if (config.enabled && config.max_lines === null && config.max_z_score === null) {
    throw invalid('"value" must contain at least one of [max_lines, max_z_score]', 'value');
  }
  config.channels.webhook.forEach((hook, index) => {
    if (typeof hook.bodyTemplate === 'string') {
      try {
        hook.bodyTemplate = JSON.parse(hook.bodyTemplate);
      } catch {
        throw invalid(`"channels.webhook[${index}].bodyTemplate" must be a JSON object`, `channels.webhook[${index}].bodyTemplate`);
      }
      if (hook.bodyTemplate === null || typeof hook.bodyTemplate !== 'object' || Array.isArray(hook.bodyTemplate)) {
        throw invalid(`"channels.webhook[${index}].bodyTemplate" must be a JSON object`, `channels.webhook[${index}].bodyTemplate`);
      }
    }
    const unknown = unknownTokens(hook.bodyTemplate);
    if (unknown.length > 0) throw invalid(`Invalid bodyTemplate: ${unknown[0]} is not a valid token`, `channels.webhook[${index}].bodyTemplate`);
  });
  return config as IndexRateConfig;
}

/** As Mezmo reads it back: a webhook's bodyTemplate as JSON text. */
export function configForRead(config: IndexRateConfig): Record<string, unknown> {
  const { setBy: _setBy, ...shown } = config;
  return {
    ...shown,
    channels: {
      ...config.channels,
      webhook: config.channels.webhook.map((hook) => ({ ...hook, ...(hook.bodyTemplate ? { bodyTemplate: JSON.stringify(hook.bodyTemplate) } : {}) })),
    },
  };
}

/** Each organisation's index-rate alert in the configuration database, and the last period it fired for. */
export class IndexRateAlerts {
  constructor(private readonly db: ConfigKysely) {}

  async get(account: string): Promise<IndexRateConfig> {
    const row = await this.db.selectFrom('index_rate_alerts').select('config_json').where('account', '=', account).executeTakeFirst();
    return row ? (JSON.parse(row.config_json) as IndexRateConfig) : UNSET;
  }

  async put(account: string, config: IndexRateConfig): Promise<void> {
    const config_json = JSON.stringify(config);
    await this.db
      .insertInto('index_rate_alerts')
      .values({ account, config_json, fired_period: null })
      .onConflict((conflict) => conflict.column('account').doUpdateSet({ config_json }))
      .execute();
  }

  /** Every enabled alert, with the period each last fired for. */
  async enabled(): Promise<Array<{ account: string; config: IndexRateConfig; firedPeriod: number | null }>> {
    const rows = await this.db.selectFrom('index_rate_alerts').select(['account', 'config_json', 'fired_period']).execute();
    return rows
      .map((row) => ({ account: row.account, config: JSON.parse(row.config_json) as IndexRateConfig, firedPeriod: row.fired_period }))
      .filter((row) => row.config.enabled);
  }
}
