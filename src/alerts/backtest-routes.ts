import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { alertRuleKeys, prepareChannels } from '../views/channels.js';
import { validate } from '../http/validation.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { compileQuery } from '../query/compile.js';
import type { LogStore } from '../store/log-store.js';
import type { BacktestResponse } from '../wire/types.js';
import { ACTIVITY_LOOKBACK_MS, type BacktestChannel, backtestFirings, backtestRange } from './backtest.js';
import { intervalMs } from './intervals.js';

const list = Joi.array().items(Joi.string().max(512)).max(1000);

/** The rule's settings as a view's channel has them; other channel fields (integration, url) are ignored. */
const backtestSchema = Joi.object({
  query: Joi.string().allow('').max(10_000).default(''),
  hosts: list,
  apps: list,
  levels: list,
  tags: list,
  days: Joi.number().integer().min(1).max(7).default(1),
  channel: Joi.object(alertRuleKeys)
    .unknown(true)
    .required(),
});

interface BacktestBody {
  query: string;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
  days: number;
  channel: BacktestChannel & { triggerinterval: string };
}

/**
 * POST /v1/alerts/backtest: would this alert have fired? Runs a view's filters and one channel's
 * rule over the last `days` (1 to 7) of stored lines, with one counting query, and answers with
 * each firing: when, which window, which kind, and how many lines it would have carried.
 */
export async function backtestRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; store: LogStore; now: () => number }): Promise<void> {
  app.post('/v1/alerts/backtest', { config: { permission: 'read' } }, async (request): Promise<BacktestResponse> => {
    const { account, scope } = await deps.auth.principal(request);
    const raw = request.body as { channel?: unknown } | undefined;
    // Channels come as views store them, in either dialect: prepared the same way (a number interval, "true").
    const prepared = raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...raw, channel: (prepareChannels([raw.channel]) as unknown[])[0] } : raw;
    const body = validate<BacktestBody>(backtestSchema, prepared);
    const condition = compileQuery(body.query, scope);
    const { channel } = body;
    const interval = intervalMs(String(channel.triggerinterval));
    const range = backtestRange(deps.now(), interval, body.days);
    const immediate = channel.operator === 'presence' && channel.immediate;
    const counts = await deps.store.alertWindows(
      {
        account,
        fromMs: range.from - ACTIVITY_LOOKBACK_MS,
        toMs: range.to - 1,
        hosts: body.hosts?.length ? body.hosts : undefined,
        apps: body.apps?.length ? body.apps : undefined,
        levels: body.levels?.length ? body.levels.map((level) => level.toUpperCase()) : undefined,
        tags: body.tags?.length ? body.tags : undefined,
        condition,
      },
      interval,
      immediate ? channel.triggerlimit : undefined,
    );
    return { firings: backtestFirings(channel, counts, range, interval), windows: range.windows, evaluatedFrom: range.from, evaluatedTo: range.to, intervalMs: interval };
  });
}
