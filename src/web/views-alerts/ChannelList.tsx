import type { Channel } from '../api-client/client.js';
import type { ViewFilters } from './ChannelChecks.js';
import { ChannelEditor, blankChannel } from './ChannelEditor.js';
import { KIND_NAMES, NEW_KINDS } from './channel-kinds.js';

interface Props {
  channels: Channel[];
  viewid?: string;
  /** The view's search, which a backtest replays. */
  filters: ViewFilters;
  onChange: (channels: Channel[]) => void;
}

/** A view's own alerts, each editable, and buttons to add one of each kind. */
export function ChannelList({ channels, viewid, filters, onChange }: Props) {
  return (
    <fieldset className="channels">
      <legend>Alerts</legend>
      {channels.map((channel, index) => (
        <ChannelEditor
          key={index}
          channel={channel}
          viewid={viewid}
          filters={filters}
          onChange={(change) => onChange(channels.map((kept, i) => (i === index ? { ...kept, ...change } : kept)))}
          onRemove={() => onChange(channels.filter((_, i) => i !== index))}
        />
      ))}
      <div className="channel-row">
        <span>Add an alert:</span>
        {NEW_KINDS.map((integration) => (
          <button key={integration} type="button" onClick={() => onChange([...channels, blankChannel(integration)])}>
            + {integration === 'incidentpaging' ? 'paging' : KIND_NAMES[integration]}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
