import type { Channel } from '../api-client/client.js';
import { ChannelChecks, type ViewFilters } from './ChannelChecks.js';
import { HeaderRows } from './HeaderRows.js';
import { SetterNote } from './SetterNote.js';

/** The zones an e-mail's times can be written in, picked rather than typed (a typo would be refused). */
const ZONES: string[] = Intl.supportedValuesOf?.('timeZone') ?? ['UTC'];

const INTERVALS = ['30', '1m', '5m', '15m', '30m', '1h', '6h', '12h', '24h', '25h'];

export function blankChannel(integration: string): Channel {
  const base: Channel = { integration, operator: 'presence', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false };
  if (integration === 'email') return { ...base, emails: [], timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
  if (integration === 'webhook') return { ...base, url: '', method: 'post', bodyTemplate: '' };
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
  const zones = channel.timezone && !ZONES.includes(channel.timezone) ? [channel.timezone, ...ZONES] : ZONES;
  return (
    <div className="channel" data-testid="channel">
      <div className="channel-row">
        <strong>{channel.integration === 'email' ? 'E-mail' : channel.integration === 'webhook' ? 'Webhook' : 'Paging'}</strong>
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
      {channel.integration === 'email' && (
        <div className="channel-row">
          <input aria-label="E-mail addresses" placeholder="ops@example.com, dev@example.com" value={(channel.emails ?? []).join(', ')} onChange={(e) => onChange({ emails: e.target.value.split(',').map((s) => s.trim()).filter(Boolean) })} />
          <select aria-label="Time zone" value={channel.timezone ?? ''} onChange={(e) => onChange({ timezone: e.target.value || undefined })}>
            <option value="">(server default)</option>
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        </div>
      )}
      {channel.integration === 'webhook' && (
        <div className="channel-row">
          <select aria-label="Method" value={channel.method} onChange={(e) => onChange({ method: e.target.value })}>
            {['post', 'put', 'patch', 'get', 'delete'].map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <input aria-label="Webhook URL" placeholder="https://hooks.example.com/..." value={channel.url ?? ''} onChange={(e) => onChange({ url: e.target.value })} data-testid="webhook-url" />
          <textarea aria-label="Body template" placeholder='{"text": "{{ matches }} lines in {{ name }}"}' value={channel.bodyTemplate ?? ''} onChange={(e) => onChange({ bodyTemplate: e.target.value })} />
        </div>
      )}
      {channel.integration === 'webhook' && <HeaderRows headers={channel.headers} onChange={(headers) => onChange({ headers })} />}
      {(channel.integration === 'incidentpaging' || channel.integration === 'pagerduty') && (
        <div className="channel-row">
          <input aria-label="Routing key" placeholder="PagerDuty routing key" value={channel.key ?? ''} onChange={(e) => onChange({ key: e.target.value })} />
        </div>
      )}
      <SetterNote channel={channel} />
      <ChannelChecks channel={channel} viewid={viewid} filters={filters} />
    </div>
  );
}
