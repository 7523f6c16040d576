import type { Channel } from '../api-client/client.js';
import { HeaderRows } from './HeaderRows.js';
import { AutoResolve } from './AutoResolve.js';

/** The zones an e-mail's times can be written in, picked rather than typed (a typo would be refused). */
const ZONES: string[] = Intl.supportedValuesOf?.('timeZone') ?? ['UTC'];

type Change = (change: Partial<Channel>) => void;

/** Where an alert sends, and what it needs to get there: one row of settings per kind of channel. */
export function ChannelTarget({ channel, onChange }: { channel: Channel; onChange: Change }) {
  const zones = channel.timezone && !ZONES.includes(channel.timezone) ? [channel.timezone, ...ZONES] : ZONES;
  const kind = channel.integration;
  return (
    <>
      {kind === 'email' && (
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
      {kind === 'webhook' && (
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
      {kind === 'webhook' && <HeaderRows headers={channel.headers} onChange={(headers) => onChange({ headers })} />}
      {(kind === 'incidentpaging' || kind === 'pagerduty') && (
        <div className="channel-row">
          <input aria-label="Routing key" placeholder="PagerDuty routing key" value={channel.key ?? ''} onChange={(e) => onChange({ key: e.target.value })} />
        </div>
      )}
      {kind === 'slack' && (
        <div className="channel-row">
          <input aria-label="Slack webhook URL" placeholder="https://hooks.slack.com/services/..." value={channel.url ?? ''} onChange={(e) => onChange({ url: e.target.value })} />
          <input aria-label="Colour" placeholder="#d4b135 (optional)" value={channel.color ?? ''} onChange={(e) => onChange({ color: e.target.value || undefined })} />
        </div>
      )}
      {kind === 'teams' && (
        <div className="channel-row">
          <input aria-label="Teams workflow URL" placeholder="https://...logic.azure.com/workflows/..." value={channel.url ?? ''} onChange={(e) => onChange({ url: e.target.value })} />
        </div>
      )}
      {kind === 'opsgenie' && (
        <div className="channel-row">
          <input aria-label="OpsGenie API key" placeholder="OpsGenie API integration key" value={channel.key ?? ''} onChange={(e) => onChange({ key: e.target.value })} />
          <select aria-label="OpsGenie region" value={channel.region ?? 'us'} onChange={(e) => onChange({ region: e.target.value })}>
            <option value="us">US (api.opsgenie.com)</option>
            <option value="eu">EU (api.eu.opsgenie.com)</option>
          </select>
        </div>
      )}
      {kind === 'victorops' && (
        <div className="channel-row">
          <input aria-label="VictorOps API key" placeholder="REST integration API key" value={channel.key ?? ''} onChange={(e) => onChange({ key: e.target.value })} />
          <input aria-label="VictorOps routing key" placeholder="routing key" value={channel.routingkey ?? ''} onChange={(e) => onChange({ routingkey: e.target.value })} />
        </div>
      )}
      {(kind === 'opsgenie' || kind === 'victorops') && <AutoResolve channel={channel} onChange={onChange} />}
    </>
  );
}
