import type { Channel } from '../api-client/client.js';
import { ChannelChecks, type ViewFilters } from './ChannelChecks.js';
import { ChannelTarget } from './ChannelTarget.js';
import { INTERVALS, KIND_NAMES } from './channel-kinds.js';
import { SetterNote } from './SetterNote.js';


export function blankChannel(integration: string): Channel {
  const base: Channel = { integration, operator: 'presence', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false };
  if (integration === 'email') return { ...base, emails: [], timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
  if (integration === 'webhook') return { ...base, url: '', method: 'post', bodyTemplate: '' };
  if (integration === 'slack' || integration === 'teams') return { ...base, url: '' };
  if (integration === 'opsgenie') return { ...base, key: '', region: 'us', autoresolve: false };
  if (integration === 'victorops') return { ...base, key: '', routingkey: '', autoresolve: false };
  return { ...base, key: '' };
}

/** One alert of a view: when it fires, and where it sends. */
export function ChannelEditor({
  channel,
  onChange,
  onRemove,
  viewid,
  filters,
}: {
  channel: Channel;
  onChange: (change: Partial<Channel>) => void;
  onRemove: () => void;
  viewid?: string;
  filters: ViewFilters;
}) {
  return (
    <div className="channel" data-testid="channel">
      <div className="channel-row">
        <strong>{KIND_NAMES[channel.integration] ?? channel.integration}</strong>
        <select aria-label="Operator" value={channel.operator} onChange={(e) => onChange({ operator: e.target.value, ...(e.target.value === 'absence' ? { immediate: false, terminal: true, triggerinterval: '15m' } : {}) })}>
          <option value="presence">when at least</option>
          <option value="absence">when fewer than</option>
        </select>
        <input aria-label="Trigger limit" type="number" min={1} max={100000} value={channel.triggerlimit} onChange={(e) => onChange({ triggerlimit: Number(e.target.value) })} />
        <span>lines in</span>
        <select aria-label="Trigger interval" value={channel.triggerinterval} onChange={(e) => onChange({ triggerinterval: e.target.value })}>
          {INTERVALS.map((interval) => (
            <option key={interval} value={interval}>
              {interval === '30' ? '30s' : interval}
            </option>
          ))}
        </select>
        <label className="inline">
          <input type="checkbox" checked={!!channel.immediate} onChange={(e) => onChange({ immediate: e.target.checked })} /> immediately
        </label>
        <label className="inline">
          <input type="checkbox" checked={!!channel.terminal} onChange={(e) => onChange({ terminal: e.target.checked })} /> at window end
        </label>
        <button type="button" aria-label="Remove alert" onClick={onRemove}>
          Remove
        </button>
      </div>
      <ChannelTarget channel={channel} onChange={onChange} />
      <SetterNote channel={channel} />
      <ChannelChecks channel={channel} viewid={viewid} filters={filters} />
    </div>
  );
}
