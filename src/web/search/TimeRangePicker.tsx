import { useContext, useEffect, useState } from 'react';
import { fromInput, toInput } from '../shared/time-formats.js';
import { ZoneContext, useTimeFormats } from '../shared/time-zone.js';
import { RANGES, reversedRange } from './url-state.js';

interface Props {
  range: string;
  from: number;
  to: number;
  onChange: (change: { range: string; from?: number; to?: number }) => void;
}

/** A preset range, or a custom one from two date-times; a reversed custom range is refused with the one message. */
export function TimeRangePicker({ range, from, to, onChange }: Props) {
  const zone = useContext(ZoneContext);
  const times = useTimeFormats();
  /** The custom range's form opens under the picker when chosen, and closes once applied. */
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState({ from: toInput(from, zone), to: toInput(to, zone) });
  useEffect(() => setDraft({ from: toInput(from, zone), to: toInput(to, zone) }), [from, to, zone]);
  const parsed = { from: fromInput(draft.from, zone), to: fromInput(draft.to, zone) };
  const complete = Number.isFinite(parsed.from) && Number.isFinite(parsed.to);
  const problem = complete ? reversedRange(parsed.from, parsed.to) : 'Enter both times.';
  return (
    <div className="range-picker">
      <select aria-label="Time range" value={range} onChange={(e) => {
          setOpen(e.target.value === 'custom');
          onChange(e.target.value === 'custom' ? { range: 'custom', from, to } : { range: e.target.value });
        }} data-testid="range">
        {RANGES.map((preset) => (
          <option key={preset.key} value={preset.key}>
            {preset.label}
          </option>
        ))}
        <option value="custom">Custom range</option>
      </select>
      {range === 'custom' && (
        <button type="button" className="range-summary" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="range-summary">
          {times.day.format(new Date(from))} {times.clockSeconds.format(new Date(from))} – {times.day.format(new Date(to))} {times.clockSeconds.format(new Date(to))}
        </button>
      )}
      {range === 'custom' && open && (
        <form
          className="custom-range"
          aria-label="Custom time range"
          onSubmit={(event) => {
            event.preventDefault();
            if (problem) return;
            setOpen(false);
            onChange({ range: 'custom', from: parsed.from, to: parsed.to });
          }}
        >
          <label>
            From <input type="datetime-local" step="1" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} data-testid="range-from" />
          </label>
          <label>
            To <input type="datetime-local" step="1" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} data-testid="range-to" />
          </label>
          <span className="custom-range-actions">
            <button type="submit" className="primary" disabled={!!problem}>
              Apply
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </span>
          {problem && complete && (
            <span className="error range-problem" role="alert" data-testid="range-problem">
              {problem}
            </span>
          )}
        </form>
      )}
    </div>
  );
}
