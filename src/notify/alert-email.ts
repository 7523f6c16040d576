import type { AlertEvent } from './alert-event.js';
import { intervalInWords, summary, templateContext } from './alert-context.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** Formats an instant in the channel's time zone, naming the zone, e.g. "22 Nov 2026, 13:05:00 GMT+13". */
export function formatInstant(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'long' }).format(new Date(ms));
}

/** The alert e-mail: view, count, window, link and the matched lines, times in the channel's zone. */
export function alertEmail(event: AlertEvent, publicUrl: string): { subject: string; text: string; html: string } {
  const zone = event.channel.timezone ?? 'UTC';
  const context = templateContext(event, publicUrl);
  const headline = summary(event);
  const window = `${formatInstant(event.windowStart, zone)} to ${formatInstant(event.windowEnd, zone)}`;
  const interval = intervalInWords(event.channel.triggerinterval);
  const rule =
    event.channel.operator === 'absence'
      ? `fewer than ${event.channel.triggerlimit} lines in ${interval}`
      : `${event.channel.triggerlimit} or more lines in ${interval}`;
  const lines = event.samples.map((sample) => ({ time: formatInstant(Number(sample._ts), zone), host: String(sample._host ?? ''), app: String(sample._app ?? ''), text: String(sample._line ?? '') }));
  const omitted = event.matches - lines.length;
  const more = omitted > 0 ? `${omitted} more matched ${omitted === 1 ? 'line is' : 'lines are'} not shown.` : '';

  const text = [
    headline,
    '',
    `View:    ${event.viewName}`,
    `Query:   ${event.query || '(none)'}`,
    `Alert:   ${rule}`,
    `Window:  ${window}`,
    `Matches: ${event.matches}`,
    `Open:    ${context.url}`,
    '',
    ...lines.map((line) => `${line.time}  ${line.host}  ${line.app}  ${line.text}`),
    ...(more ? ['', more] : []),
  ].join('\n');

  const rows = lines
    .map((line) => `<tr><td style="white-space:nowrap;color:#555">${escapeHtml(line.time)}</td><td>${escapeHtml(line.host)}</td><td>${escapeHtml(line.app)}</td><td style="font-family:monospace;white-space:pre-wrap">${escapeHtml(line.text)}</td></tr>`)
    .join('');
  const html = `<!doctype html><html><body style="font-family:sans-serif;font-size:14px">
<h2 style="margin:0 0 12px">${escapeHtml(headline)}</h2>
<table style="border-collapse:collapse;margin-bottom:12px">
<tr><th align="left">View</th><td>${escapeHtml(event.viewName)}</td></tr>
<tr><th align="left">Query</th><td><code>${escapeHtml(event.query || '(none)')}</code></td></tr>
<tr><th align="left">Alert</th><td>${escapeHtml(rule)}</td></tr>
<tr><th align="left">Window</th><td>${escapeHtml(window)}</td></tr>
<tr><th align="left">Matches</th><td>${event.matches}</td></tr>
</table>
<p><a href="${escapeHtml(String(context.url))}">Open the view in Logstead</a></p>
${rows ? `<table cellpadding="4" style="border-collapse:collapse;font-size:13px">${rows}</table>` : ''}
${more ? `<p>${escapeHtml(more)}</p>` : ''}
</body></html>`;

  return { subject: `Logstead alert: ${headline}`, text, html };
}
