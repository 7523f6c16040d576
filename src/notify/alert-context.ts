import type { AlertEvent } from './alert-event.js';

/** The search range a linked line is shown in: the hour up to and including it. */
const LINKED_LINE_SPAN_MS = 3_600_000;

/**
 * The address of a view in the viewer. With a matched line it opens at that line, searching the
 * hour that ends with it, so the line is on the first page however long after the alert the link
 * is followed (or however old the line's own timestamp is).
 */
export function viewUrl(publicUrl: string, viewid: string, line?: Record<string, unknown>): string {
  let url = `${publicUrl}/?view=${encodeURIComponent(viewid)}`;
  if (typeof line?._id === 'string') url += `&line=${encodeURIComponent(line._id)}`;
  if (typeof line?._ts === 'number') url += `&from=${line._ts - LINKED_LINE_SPAN_MS}&to=${line._ts + 1}`;
  return url;
}

/** The tokens a webhook template can use, from the first matched line and the whole window. */
export function templateContext(event: AlertEvent, publicUrl: string): Record<string, unknown> {
  const first = event.samples[0] ?? {};
  return {
    name: event.viewName,
    matches: event.matches,
    lines: event.samples.map((sample) => sample._line).join('\n'),
    level: first.level ?? '',
    // Only presence alerts have a line to point at.
    url: viewUrl(publicUrl, event.viewid, event.kind === 'absence' ? undefined : first),
    query: event.query,
    app: first._app ?? '',
    host: first._host ?? '',
    tag: Array.isArray(first.tags) ? first.tags.join(',') : '',
    line: first._line ?? '',
    line_objects: event.samples,
    first_line_object: event.samples[0] ?? {},
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A trigger interval in words: "30" is 30 seconds, "5m" 5 minutes, "1h" 1 hour. */
export function intervalInWords(triggerinterval: string): string {
  const match = /^(\d+)([mh]?)$/.exec(triggerinterval);
  if (!match) return triggerinterval;
  return plural(Number(match[1]), match[2] === 'h' ? 'hour' : match[2] === 'm' ? 'minute' : 'second');
}

export function summary(event: AlertEvent): string {
  return event.kind === 'absence'
    ? `Only ${plural(event.matches, 'line')} in view "${event.viewName}" (expected at least ${event.channel.triggerlimit})`
    : `${plural(event.matches, 'line')} matched view "${event.viewName}"`;
}

