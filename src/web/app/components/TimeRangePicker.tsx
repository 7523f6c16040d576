import { useEffect, useState } from 'react';
import { RANGES, reversedRange } from '../url-state.js';

const toLocalInput = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);

interface Props {
  range: string;
  from: number;
  to: number;
  onChange: (change: { range: string; from?: number; to?: number }) => void;
}

/** A preset range, or a custom one from two date-times; a reversed custom range is refused with the one message. */
export function TimeRangePicker({ range, from, to, onChange }: Props) {
  const [draft, setDraft] = useState({ from: toLocalInput(from), to: toLocalInput(to) });
  useEffect(() => setDraft({ from: toLocalInput(from), to: toLocalInput(to) }), [from, to]);
  const parsed = { from: Date.parse(draft.from), to: Date.parse(draft.to) };
  const complete = Number.isFinite(parsed.from) && Number.isFinite(parsed.to);
  const problem = complete ? reversedRange(parsed.from, parsed.to) : 'Enter both times.';
  return (
    <div className="range-picker">
      <select aria-label="Time range" value={range} onChange={(e) => onChange(e.target.value === 'custom' ? { range: 'custom', from, to } : { range: e.target.value })} data-testid="range">
        {RANGES.map((preset) => (
          <option key={preset.key} value={preset.key}>
            {preset.label}
          </option>
        ))}
        <option value="custom">Custom range</option>
      </select>
      {range === 'custom' && (
        <form
          className="custom-range"
          onSubmit={(event) => {
            event.preventDefault();
            if (!problem) onChange({ range: 'custom', from: parsed.from, to: parsed.to });
          }}
        >
          <label>
            From <input type="datetime-local" step="1" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} data-testid="range-from" />
          </label>
          <label>
            To <input type="datetime-local" step="1" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} data-testid="range-to" />
          </label>
          <button type="submit" disabled={!!problem}>
            Apply
          </button>
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
