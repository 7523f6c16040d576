import type { Channel } from '../api-client/client.js';
import { INTERVALS } from './channel-kinds.js';

/** Auto-resolve (OpsGenie, VictorOps): close the alert once a window has fewer than the limit's lines. */
export function AutoResolve({ channel, onChange }: { channel: Channel; onChange: (change: Partial<Channel>) => void }) {
  return (
    <div className="channel-row">
      <label className="inline">
        <input
          type="checkbox"
          aria-label="Auto-resolve"
          checked={!!channel.autoresolve}
          onChange={(e) => onChange(e.target.checked ? { autoresolve: true, autoresolveinterval: channel.autoresolveinterval ?? '15m', autoresolvelimit: channel.autoresolvelimit ?? 1 } : { autoresolve: false, autoresolveinterval: undefined, autoresolvelimit: undefined })}
        />{' '}
        resolve when {channel.operator === 'absence' ? 'more' : 'fewer'} than
      </label>
      <input aria-label="Auto-resolve limit" type="number" min={1} max={100000} disabled={!channel.autoresolve} value={channel.autoresolvelimit ?? 1} onChange={(e) => onChange({ autoresolvelimit: Number(e.target.value) })} />
      <span>lines come in</span>
      <select aria-label="Auto-resolve interval" disabled={!channel.autoresolve} value={channel.autoresolveinterval ?? '15m'} onChange={(e) => onChange({ autoresolveinterval: e.target.value })}>
        {INTERVALS.map((interval) => (
          <option key={interval} value={interval}>
            {interval === '30' ? '30s' : interval}
          </option>
        ))}
      </select>
    </div>
  );
}
