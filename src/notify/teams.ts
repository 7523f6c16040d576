import type { ChatContent } from './chat-content.js';

/**
 * A message for a Teams Workflows webhook ("Post to a channel when a webhook request is
 * received"): one Adaptive Card attachment with the same content as Slack's message.
 */
export function teamsBody(content: ChatContent): string {
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', text: content.title, weight: 'Bolder', size: 'Medium', wrap: true, ...(content.resolved ? { color: 'Good' } : { color: 'Attention' }) },
      {
        type: 'FactSet',
        facts: [
          { title: 'View', value: content.viewName },
          { title: 'Matches', value: String(content.matches) },
          ...(content.query ? [{ title: 'Query', value: content.query }] : []),
        ],
      },
      ...(content.lines ? [{ type: 'TextBlock', text: content.lines, fontType: 'Monospace', wrap: true }] : []),
    ],
    actions: [{ type: 'Action.OpenUrl', title: 'Open in Logstead', url: content.url }],
  };
  return JSON.stringify({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] });
}
