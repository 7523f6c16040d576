import type { AlertEvent } from './alert-event.js';
import { isPaging } from '../views/channels.js';
import { renderBodyTemplate } from './body-template.js';
import { summary, templateContext } from './alert-context.js';
import { alertEmail } from './alert-email.js';
import { chatContent } from './chat-content.js';
import { OPSGENIE_BASES, opsgenieRequest } from './opsgenie.js';
import { slackBody } from './slack.js';
import { teamsBody } from './teams.js';
import { victoropsBody, victoropsUrl } from './victorops.js';

/** The chat and incident services, each sent as one HTTP request and judged by its own rules (send.ts). */
export type ServiceIntegration = 'slack' | 'teams' | 'opsgenie' | 'victorops';

/** A rendered notification, stored in the outbox until it is delivered. */
export type DeliveryMessage =
  | { integration: 'email'; to: string[]; subject: string; text: string; html: string; attachments?: Array<{ filename: string; content: string; encoding: 'base64' }> }
  | { integration: 'webhook'; url: string; method: string; headers: Record<string, string>; body?: string }
  | { integration: 'incidentpaging'; url: string; body: string }
  | { integration: ServiceIntegration; url: string; method: string; headers: Record<string, string>; body: string };

export interface MessageSettings {
  /** The viewer's public address, for links. */
  publicUrl: string;
  /** Where PagerDuty Events API v2 requests go. */
  pagingUrl: string;
  /** OpsGenie's API base for every region (LOGSTEAD_OPSGENIE_URL); unset: by the channel's region. */
  opsgenieUrl?: string;
  /** VictorOps' REST endpoint base (LOGSTEAD_VICTOROPS_URL). */
  victoropsUrl?: string;
}

const VICTOROPS_DEFAULT = 'https://alert.victorops.com/integrations/generic/20131114/alert';
const JSON_HEADERS = { 'content-type': 'application/json' };

const PAGER_SEVERITY: Record<string, string> = { FATAL: 'critical', CRITICAL: 'critical', EMERGENCY: 'critical', ALERT: 'critical', ERROR: 'error', SEVERE: 'error', WARN: 'warning' };
/** PagerDuty refuses events over 512 KB; Mezmo trims at 400 KB. */
const MAX_PAGING_BYTES = 400 * 1024;

function pagingEvent(event: AlertEvent, settings: MessageSettings): string {
  const context = templateContext(event, settings.publicUrl);
  const build = (lines: Array<Record<string, unknown>>) =>
    JSON.stringify({
      routing_key: event.channel.key,
      event_action: 'trigger',
      // One incident per channel on a view: repeated fires update it instead of opening new ones.
      dedup_key: `logstead-${event.viewid}-${event.channel.alertid}`,
      payload: {
        summary: summary(event),
        source: String(context.host || 'logstead'),
        severity: event.kind === 'absence' ? 'error' : (PAGER_SEVERITY[String(context.level).toUpperCase()] ?? 'info'),
        timestamp: new Date(event.firedAt).toISOString(),
        component: String(context.app || ''),
        custom_details: { view: event.viewName, query: event.query, matches: event.matches, window_start: new Date(event.windowStart).toISOString(), window_end: new Date(event.windowEnd).toISOString(), url: context.url, lines },
      },
      links: [{ href: context.url, text: 'Open in Logstead' }],
      client: 'Logstead',
      client_url: context.url,
    });
  let lines = event.samples;
  let body = build(lines);
  while (Buffer.byteLength(body) > MAX_PAGING_BYTES && lines.length > 0) {
    lines = lines.slice(0, Math.floor(lines.length / 2));
    body = build(lines);
  }
  return body;
}

/** Renders the notification an alert event sends through its channel. */
export function alertMessage(event: AlertEvent, settings: MessageSettings): DeliveryMessage {
  const { channel } = event;
  if (channel.integration === 'email') {
    return { integration: 'email', to: channel.emails ?? [], ...alertEmail(event, settings.publicUrl) };
  }
  if (isPaging(channel.integration)) {
    return { integration: 'incidentpaging', url: settings.pagingUrl, body: pagingEvent(event, settings) };
  }
  if (channel.integration === 'slack') {
    return { integration: 'slack', url: channel.url!, method: 'POST', headers: JSON_HEADERS, body: slackBody(chatContent(event, settings.publicUrl), channel.color) };
  }
  if (channel.integration === 'teams') {
    return { integration: 'teams', url: channel.url!, method: 'POST', headers: JSON_HEADERS, body: teamsBody(chatContent(event, settings.publicUrl)) };
  }
  if (channel.integration === 'opsgenie') {
    const base = settings.opsgenieUrl ?? OPSGENIE_BASES[channel.region ?? 'us'] ?? OPSGENIE_BASES.us;
    return { integration: 'opsgenie', ...opsgenieRequest(event, base, settings.publicUrl) };
  }
  if (channel.integration === 'victorops') {
    const url = victoropsUrl(settings.victoropsUrl ?? VICTOROPS_DEFAULT, channel.key!, channel.routingkey!);
    return { integration: 'victorops', url, method: 'POST', headers: JSON_HEADERS, body: victoropsBody(event, settings.publicUrl) };
  }
  const context = templateContext(event, settings.publicUrl);
  const body = channel.bodyTemplate
    ? renderBodyTemplate(channel.bodyTemplate, context)
    : {
        name: context.name,
        matches: context.matches,
        kind: event.kind,
        operator: channel.operator,
        query: context.query,
        url: context.url,
        level: context.level,
        app: context.app,
        host: context.host,
        line: context.line,
        lines: context.lines,
        window: { start: new Date(event.windowStart).toISOString(), end: new Date(event.windowEnd).toISOString() },
        line_objects: context.line_objects,
      };
  const method = (channel.method ?? 'post').toUpperCase();
  const headers = { ...(channel.headers ?? {}) };
  const hasBody = method !== 'GET' && method !== 'DELETE';
  if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return { integration: 'webhook', url: channel.url!, method, headers, ...(hasBody ? { body: JSON.stringify(body) } : {}) };
}

/**
 * What a delivery goes to, for the delivery log. Where the address is the credential (a Slack or
 * Teams incoming webhook, VictorOps' key in the path) it shows only the service and a mask.
 */
export function deliveryTarget(message: DeliveryMessage): string {
  if (message.integration === 'email') return message.to.join(', ');
  if (message.integration === 'slack' || message.integration === 'teams') return `${originOf(message.url)}/********`;
  if (message.integration === 'victorops') {
    const parts = message.url.split('/');
    return [...parts.slice(0, -2), '********', parts[parts.length - 1]].join('/');
  }
  return message.url;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
