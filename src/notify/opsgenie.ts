import type { AlertEvent } from './alert-event.js';
import { summary, templateContext } from './alert-context.js';
import { cutLines } from './chat-content.js';

/** OpsGenie's API by region (docs.opsgenie.com/docs/alert-api: "EU instance ... api.eu.opsgenie.com"). */
export const OPSGENIE_BASES: Record<string, string> = { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' };

/**
 * OpsGenie priority from the first line's level, P1 (critical) to P5 (informational), as its
 * priority levels are documented: fatal, emergency, alert and critical lines are P1; error and
 * severe P2; warnings P3; anything else P4 (OpsGenie's default is P3, which would rank an info
 * line with a warning); debug and trace P5. An absence alert is P2: something stopped.
 */
const PRIORITY: Record<string, string> = { FATAL: 'P1', EMERGENCY: 'P1', ALERT: 'P1', CRITICAL: 'P1', ERROR: 'P2', SEVERE: 'P2', WARN: 'P3', WARNING: 'P3', DEBUG: 'P5', TRACE: 'P5' };

export function opsgeniePriority(event: AlertEvent): string {
  if (event.kind === 'absence') return 'P2';
  return PRIORITY[String(event.samples[0]?.level ?? '').toUpperCase()] ?? 'P4';
}

/** One alert per view and channel: a repeat fire is counted by OpsGenie's de-duplication, not opened again. */
export const opsgenieAlias = (event: Pick<AlertEvent, 'viewid' | 'channel'>) => `logstead-${event.viewid}-${event.channel.alertid}`;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export interface OpsgenieRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Create (POST /v2/alerts) or, for a resolve, close by alias (POST /v2/alerts/{alias}/close?identifierType=alias). */
export function opsgenieRequest(event: AlertEvent, base: string, publicUrl: string): OpsgenieRequest {
  const headers = { 'content-type': 'application/json', authorization: `GenieKey ${event.channel.key}` };
  const alias = opsgenieAlias(event);
  const context = templateContext(event, publicUrl);
  if (event.kind === 'resolve') {
    const note = `Closed by Logstead: ${event.matches} matching line${event.matches === 1 ? '' : 's'} in the last ${event.channel.autoresolveinterval} in view "${event.viewName}"`;
    return { url: `${base}/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`, method: 'POST', headers, body: JSON.stringify({ source: 'Logstead', user: 'Logstead', note: cut(note, 25000) }) };
  }
  // Limits from the Alert API: message 130 characters, alias 512, description 15000.
  const body = {
    message: cut(summary(event), 130),
    alias,
    description: cut(`${cutLines(event.samples.map((sample) => String(sample._line ?? '')))}\n\n${context.url}`, 15000),
    priority: opsgeniePriority(event),
    source: 'Logstead',
    entity: cut(event.viewName, 512),
    tags: ['logstead'],
    details: { view: event.viewName, query: event.query, matches: String(event.matches), url: String(context.url), app: String(context.app), host: String(context.host) },
  };
  return { url: `${base}/v2/alerts`, method: 'POST', headers, body: JSON.stringify(body) };
}
