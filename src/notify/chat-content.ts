import type { AlertEvent } from './alert-event.js';
import { summary, templateContext } from './alert-context.js';

/** What a chat message (Slack, Teams) says about an alert: the same content, laid out per client. */
export interface ChatContent {
  /** One line: what happened, in which view. */
  title: string;
  viewName: string;
  matches: number;
  query: string;
  /** The first matched lines, one per line, already cut to fit. */
  lines: string;
  /** Back to the view, at the first line. */
  url: string;
  /** Set when the alert is being closed (auto-resolve), not opened. */
  resolved?: boolean;
}

/** The lines shown: the first of the window, within what a Slack section block takes (3000 characters). */
const MAX_LINES = 10;
const MAX_LINE_CHARS = 2800;

export function cutLines(lines: string[]): string {
  let text = lines.slice(0, MAX_LINES).join('\n');
  if (text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS - 1)}…`;
  return text;
}

export function chatContent(event: AlertEvent, publicUrl: string): ChatContent {
  const context = templateContext(event, publicUrl);
  return {
    title: summary(event),
    viewName: event.viewName,
    matches: event.matches,
    query: event.query,
    lines: cutLines(event.samples.map((sample) => String(sample._line ?? ''))),
    url: String(context.url),
  };
}
