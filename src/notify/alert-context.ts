import type { AlertEvent } from '../alerts/evaluator.js';

/** The address of a view in the viewer; with a line id it opens at that line. */
export function viewUrl(publicUrl: string, viewid: string, lineId?: unknown): string {
  const line = typeof lineId === 'string' ? `&line=${encodeURIComponent(lineId)}` : '';
  return `${publicUrl}/?view=${encodeURIComponent(viewid)}${line}`;
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
    url: viewUrl(publicUrl, event.viewid, event.kind === 'absence' ? undefined : first._id),
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

