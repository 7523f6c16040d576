import type { ChatContent } from './chat-content.js';
import type { SendResult } from './http-send.js';

/** Slack's mrkdwn treats these three as markup (api.slack.com/reference/surfaces/formatting#escaping). */
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A header block takes at most 150 characters of plain text. */
const header = (text: string) => (text.length > 150 ? `${text.slice(0, 149)}…` : text);

/**
 * A Slack incoming-webhook message in Block Kit: a header, the count with a link to the view, the
 * first lines in a code block and a button back to the view; `text` is the plain fallback that
 * notifications and old clients show. With a `color`, the blocks go in an attachment, whose bar
 * takes the colour (Block Kit itself has none).
 */
export function slackBody(content: ChatContent, color?: string): string {
  const blocks: Array<Record<string, unknown>> = [
    { type: 'header', text: { type: 'plain_text', text: header(content.title) } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*${content.matches}* matching line${content.matches === 1 ? '' : 's'} in <${content.url}|${escape(content.viewName)}>${content.query ? `\nQuery: \`${escape(content.query)}\`` : ''}` },
    },
  ];
  if (content.lines) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${escape(content.lines)}\`\`\`` } });
  blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Logstead' }, url: content.url }] });
  const text = `${content.title}: ${content.url}`;
  return JSON.stringify(color ? { text, attachments: [{ color, blocks }] } : { text, blocks });
}

/** A Slack message that is not about a view (the index-rate alert): a header, its facts, a button. */
export function slackNotice(title: string, facts: string, url: string): string {
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: header(title) } },
    { type: 'section', text: { type: 'mrkdwn', text: escape(facts) } },
    { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Logstead' }, url }] },
  ];
  return JSON.stringify({ text: `${title}: ${url}`, blocks });
}

/**
 * Slack's answers as it documents them (api.slack.com/messaging/webhooks#handling_errors): 429 is
 * retried after its Retry-After (the outbox waits that long); 400, 403, 404 and 410 carry a reason
 * in the body (`invalid_payload`, `channel_not_found`, `no_service`...) and are final. OpsGenie,
 * VictorOps and Teams explain a refusal as JSON with a `message`: that is recorded the same way.
 */
export function explainedResult(result: SendResult): SendResult {
  if (result.ok || result.status === undefined || !result.answer) return result;
  const reason = reasonOf(result.answer.trim());
  return reason ? { ...result, detail: `HTTP ${result.status}: ${reason}` } : result;
}

function reasonOf(answer: string): string | undefined {
  if (answer.startsWith('{')) {
    try {
      const parsed = JSON.parse(answer);
      const message = parsed?.message ?? parsed?.error?.message ?? parsed?.error;
      return typeof message === 'string' && message ? message.slice(0, 200) : undefined;
    } catch {
      return undefined;
    }
  }
  // Not an error page: a short word such as Slack's.
  return answer.startsWith('<') || answer === '' ? undefined : answer.split('\n')[0].slice(0, 200);
}
