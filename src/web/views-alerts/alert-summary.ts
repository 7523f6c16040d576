import type { Channel } from '../api-client/client.js';

const INTERVALS: Record<string, string> = { '30': '30 seconds', '1m': '1 minute', '5m': '5 minutes', '15m': '15 minutes', '30m': '30 minutes', '1h': '1 hour', '6h': '6 hours', '12h': '12 hours', '24h': '24 hours', '25h': '25 hours' };
const WHERE: Record<string, string> = { email: 'e-mail', webhook: 'webhook', incidentpaging: 'incident paging', pagerduty: 'incident paging', slack: 'Slack', teams: 'Teams', opsgenie: 'OpsGenie', victorops: 'VictorOps' };

/**
 * One alert channel in words, for everyone who may see a view's alerts, readonly members
 * included (they cannot open the editor): "e-mail to a@x.io when 5 or more lines come within 15 minutes".
 */
export function alertSummary(channel: Channel): string {
  const where = WHERE[channel.integration] ?? channel.integration;
  const to = channel.integration === 'email' && channel.emails?.length ? ` to ${channel.emails.join(', ')}` : '';
  const within = INTERVALS[String(channel.triggerinterval ?? '')] ?? String(channel.triggerinterval ?? '');
  const limit = channel.triggerlimit;
  const when = channel.operator === 'absence' ? (limit === 1 ? 'no line comes' : `fewer than ${limit} lines come`) : limit === 1 ? 'a line comes' : `${limit} or more lines come`;
  const resolve = channel.autoresolve ? `, resolved when ${channel.operator === 'absence' ? 'more' : 'fewer'} than ${channel.autoresolvelimit} lines come within ${INTERVALS[String(channel.autoresolveinterval)] ?? channel.autoresolveinterval}` : '';
  return `${where}${to} when ${when}${within ? ` within ${within}` : ''}${resolve}${channel.held ? ' (held: its setter was removed, so nothing is sent)' : ''}`;
}

/** Who set a channel's target, in words, for the alert editor. */
export function setterSummary(setter: Channel['setter']): string | null {
  if (!setter) return null;
  if ('email' in setter) return `Set by ${setter.email}`;
  if ('key' in setter) return 'Set with a service key';
  return 'Set by a member who was removed';
}

/** The bell's tooltip: how many alerts, and each in words. */
export function alertsTooltip(channels: Channel[]): string {
  const count = `${channels.length} alert${channels.length === 1 ? '' : 's'}`;
  return [count, ...channels.map((channel) => `• ${alertSummary(channel)}`)].join('\n');
}
