import type { AlertEvent } from './alert-event.js';
import type { Channel } from '../views/channels.js';

/**
 * The alert event a "send test" renders: shaped like a real presence alert on the view, with one
 * sample line that says it is a test, so the receiver sees exactly the format it will get.
 */
export function testAlertEvent(input: { account: string; viewid: string; viewName: string; query: string; channel: Channel; now: number }): AlertEvent {
  const { channel, now } = input;
  const line = 'This is a test notification from Logstead: the channel works.';
  return {
    fireId: 0,
    account: input.account,
    viewid: input.viewid,
    viewName: input.viewName,
    query: input.query,
    channel,
    presetid: null,
    held: null,
    scopes: [],
    kind: channel.operator === 'absence' ? 'absence' : 'immediate',
    windowStart: now - 60_000,
    windowEnd: now,
    matches: 1,
    samples: [{ _line: line, line, _ts: now, _host: 'logstead', _app: 'logstead-test', level: 'INFO', _id: '0' }],
    firedAt: now,
  };
}
