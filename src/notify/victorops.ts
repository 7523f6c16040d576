import type { AlertEvent } from './alert-event.js';
import { summary, templateContext } from './alert-context.js';
import { cutLines } from './chat-content.js';

/**
 * VictorOps (Splunk On-Call) message type from the first line's level: fatal, critical and error
 * lines are CRITICAL (they page), warnings WARNING, anything else INFO (timeline only). An absence
 * alert is CRITICAL; a resolve is RECOVERY.
 */
const TYPES: Record<string, string> = { FATAL: 'CRITICAL', EMERGENCY: 'CRITICAL', ALERT: 'CRITICAL', CRITICAL: 'CRITICAL', ERROR: 'CRITICAL', SEVERE: 'CRITICAL', WARN: 'WARNING', WARNING: 'WARNING' };

export function victoropsMessageType(event: AlertEvent): string {
  if (event.kind === 'resolve') return 'RECOVERY';
  if (event.kind === 'absence') return 'CRITICAL';
  return TYPES[String(event.samples[0]?.level ?? '').toUpperCase()] ?? 'INFO';
}

/** The REST endpoint: `{base}/{api key}/{routing key}`. The key is in the path, so the delivery log shows it masked. */
export const victoropsUrl = (base: string, key: string, routingkey: string) => `${base}/${encodeURIComponent(key)}/${encodeURIComponent(routingkey)}`;

export function victoropsBody(event: AlertEvent, publicUrl: string): string {
  const context = templateContext(event, publicUrl);
  const lines = cutLines(event.samples.map((sample) => String(sample._line ?? '')));
  return JSON.stringify({
    message_type: victoropsMessageType(event),
    // One incident per view and channel: a RECOVERY with the same entity_id resolves it.
    entity_id: `logstead-${event.viewid}-${event.channel.alertid}`,
    entity_display_name: event.kind === 'resolve' ? `Resolved: view "${event.viewName}"` : summary(event),
    state_message: event.kind === 'resolve' ? `${event.matches} matching line${event.matches === 1 ? '' : 's'} in the last ${event.channel.autoresolveinterval}` : `${summary(event)}\n\n${lines}\n\n${context.url}`,
    state_start_time: Math.floor(event.firedAt / 1000),
    monitoring_tool: 'Logstead',
    view: event.viewName,
    query: event.query,
    matches: event.matches,
    url: context.url,
  });
}
