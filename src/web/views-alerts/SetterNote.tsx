import type { Channel } from '../api-client/client.js';
import { setterSummary } from './alert-summary.js';

/**
 * Who set this alert's target, which bounds what it may send (only lines that person may see), and
 * why it sends nothing when its setter is gone: an admin takes it over through the API.
 */
export function SetterNote({ channel }: { channel: Channel }) {
  const who = setterSummary(channel.setter);
  if (!who && !channel.held) return null;
  return (
    <p className={channel.held ? 'setter-note held' : 'setter-note muted'} data-testid="channel-setter">
      {who}
      {channel.held ? `. Held: ${channel.held}` : ''}
    </p>
  );
}
