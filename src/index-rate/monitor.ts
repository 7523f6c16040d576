import type { FastifyBaseLogger } from 'fastify';
import type { DeliveryMessage } from '../notify/messages.js';
import type { Outbox } from '../notify/outbox.js';
import { renderBodyTemplate } from '../notify/body-template.js';
import { slackNotice } from '../notify/slack.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import type { IndexRateAlerts, IndexRateConfig } from './config.js';
import { type SetterDirectory, SetterLookup } from '../views/setters.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const PERIOD_MS = { hourly: HOUR_MS, daily: DAY_MS } as const;
/** The recent periods a period's z-score is taken against: a day of hours, or four weeks of days. */
export const HISTORY = { hourly: 24, daily: 28 } as const;
/** A z-score needs this many recent periods with lines; with fewer, a new organisation's first lines would be "anomalous". */
export const MIN_HISTORY = 3;

/** One evaluation of an organisation's current period. */
export interface IndexRateReading {
  periodStart: number;
  periodEnd: number;
  lines: number;
  /** Against the recent periods, or null when too few of them had lines. */
  zScore: number | null;
  overLines: boolean;
  overZScore: boolean;
}

/** The current period's line count and its z-score against the HISTORY periods before it (empty ones count as 0). */
export function reading(config: IndexRateConfig, counts: Map<number, number>, periodStart: number): IndexRateReading {
  const period = PERIOD_MS[config.frequency];
  const lines = counts.get(periodStart) ?? 0;
  const history = Array.from({ length: HISTORY[config.frequency] }, (_, index) => counts.get(periodStart - (index + 1) * period) ?? 0);
  let zScore: number | null = null;
  if (history.filter((count) => count > 0).length >= MIN_HISTORY) {
    const mean = history.reduce((sum, count) => sum + count, 0) / history.length;
    const sd = Math.sqrt(history.reduce((sum, count) => sum + (count - mean) ** 2, 0) / history.length);
    zScore = sd > 0 ? (lines - mean) / sd : lines > mean ? Number.POSITIVE_INFINITY : 0;
  }
  const overLines = config.max_lines !== null && lines > config.max_lines;
  const overZScore = config.max_z_score !== null && zScore !== null && zScore > config.max_z_score;
  return { periodStart, periodEnd: periodStart + period, lines, zScore, overLines, overZScore };
}

export const fires = (config: IndexRateConfig, read: IndexRateReading): boolean =>
  config.threshold_alert === 'both' ? read.overLines && read.overZScore : read.overLines || read.overZScore;

export interface IndexRateMonitorDeps {
  db: ConfigKysely;
  alerts: IndexRateAlerts;
  store: LogStore;
  outbox: Outbox;
  messageSettings: () => { publicUrl: string; pagingUrl: string };
  now: () => number;
  log: FastifyBaseLogger;
  /** Where the alert's setter is read: it sends only while they may read every line. */
  setters: SetterDirectory;
}

/** Why an index-rate alert whose setter is now scoped sends nothing. */
export const SETTER_SCOPED = 'held: the member who set where the index-rate alert sends is now limited by an access scope, and it counts every line; an unscoped admin saving it again takes it over';

/** Why the alert sends nothing, if it does not: its setter is gone, or may no longer read every line. */
async function heldBecause(config: IndexRateConfig, setters: SetterDirectory): Promise<string | null> {
  const standing = await new SetterLookup(setters).standing(config.setBy);
  return standing.held ?? (standing.scope === null ? null : SETTER_SCOPED);
}

/**
 * Watches each organisation's index rate: every tick, the current period's stored lines against
 * the alert's max_lines and z-score, and fires once per period through the notification outbox.
 * Every node ticks; the period is claimed in the configuration database in the same transaction
 * that queues the messages, so however many nodes see it pass, one fires it.
 */
export class IndexRateMonitor {
  constructor(private readonly deps: IndexRateMonitorDeps) {}

  async tick(): Promise<number> {
    let fired = 0;
    for (const { account, config, firedPeriod } of await this.deps.alerts.enabled()) {
      try {
        if (await this.check(account, config, firedPeriod)) fired++;
      } catch (error) {
        this.deps.log.error({ err: error, account }, 'checking the index-rate alert failed');
      }
    }
    return fired;
  }

  private async check(account: string, config: IndexRateConfig, firedPeriod: number | null): Promise<boolean> {
    const period = PERIOD_MS[config.frequency];
    const now = this.deps.now();
    const periodStart = Math.floor(now / period) * period;
    if (firedPeriod !== null && firedPeriod >= periodStart) return false;
    const windows = await this.deps.store.alertWindows({ account, fromMs: periodStart - HISTORY[config.frequency] * period, toMs: periodStart + period - 1 }, period);
    const read = reading(config, new Map(windows.map((window) => [window.windowStart, window.count])), periodStart);
    if (!fires(config, read)) return false;
    const messages = indexRateMessages(account, config, read, this.deps.messageSettings());
    const held = await heldBecause(config, this.deps.setters);
    return this.deps.db.transaction().execute(async (trx) => {
      // The claim: only the node whose update finds the period unfired sends.
      const claimed = await trx
        .updateTable('index_rate_alerts')
        .set({ fired_period: periodStart })
        .where('account', '=', account)
        .where((eb) => eb.or([eb('fired_period', 'is', null), eb('fired_period', '<', periodStart)]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return false;
      for (const message of messages) await this.deps.outbox.enqueue(account, null, message, trx, { setBy: config.setBy, held });
      return true;
    });
  }
}

/** The notifications of one firing, one per channel target. */
export function indexRateMessages(account: string, config: IndexRateConfig, read: IndexRateReading, settings: { publicUrl: string; pagingUrl: string }): DeliveryMessage[] {
  const unit = config.frequency === 'hourly' ? 'hour' : 'day';
  const why = [
    read.overLines ? `more than max_lines (${config.max_lines})` : '',
    read.overZScore ? `a z-score of ${read.zScore!.toFixed(2)} against the recent ${unit}s, over max_z_score (${config.max_z_score})` : '',
  ].filter(Boolean);
  const summary = `Index rate alert: ${read.lines.toLocaleString('en')} lines this ${unit}, ${why.join(' and ')}`;
  const start = new Date(read.periodStart).toISOString();
  const end = new Date(read.periodEnd).toISOString();
  const url = settings.publicUrl;
  const context: Record<string, unknown> = {
    lines: read.lines,
    max_lines: config.max_lines,
    z_score: read.zScore === null ? null : Number.isFinite(read.zScore) ? Number(read.zScore.toFixed(4)) : 'Infinity',
    max_z_score: config.max_z_score,
    frequency: config.frequency,
    period_start: start,
    period_end: end,
    url,
  };
  const text = `${summary}.\nPeriod: ${start} to ${end}.\n${url}`;
  const messages: DeliveryMessage[] = [];
  if (config.channels.email.length > 0) {
    const html = `<p>${escapeHtml(summary)}.</p><p>Period: ${start} to ${end}.</p><p><a href="${escapeHtml(url)}">Open Logstead</a></p>`;
    messages.push({ integration: 'email', to: config.channels.email, subject: summary, text, html });
  }
  for (const key of config.channels.pagerduty) {
    const body = {
      routing_key: key,
      event_action: 'trigger',
      // One incident per organisation and period: a resend updates it.
      dedup_key: `logstead-index-rate-${account}-${read.periodStart}`,
      payload: { summary, source: 'logstead', severity: 'warning', timestamp: new Date(read.periodEnd > Date.now() ? Date.now() : read.periodEnd).toISOString(), custom_details: context },
      client: 'Logstead',
      client_url: url,
    };
    messages.push({ integration: 'incidentpaging', url: settings.pagingUrl, body: JSON.stringify(body) });
  }
  for (const slack of config.channels.slack) {
    messages.push({ integration: 'slack', url: slack, method: 'POST', headers: { 'content-type': 'application/json' }, body: slackNotice(summary, `Period: ${start} to ${end}.`, url) });
  }
  for (const hook of config.channels.webhook) {
    const hasBody = hook.method !== 'GET' && hook.method !== 'DELETE';
    const headers = { ...hook.headers };
    if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const body = hook.bodyTemplate ? renderBodyTemplate(hook.bodyTemplate, context) : { summary, ...context };
    messages.push({ integration: 'webhook', url: hook.url, method: hook.method, headers, ...(hasBody ? { body: JSON.stringify(body) } : {}) });
  }
  return messages;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
