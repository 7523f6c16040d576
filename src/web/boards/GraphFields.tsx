import type { MeasureType } from '../api-client/client.js';
import { type GraphDraft, MEASURES, MOST_SERIES } from './graph-form.js';

/** A graph's measure and breakdown: what each bucket's value is, and which field splits it into series. */
export function MeasureFields({ draft, onChange }: { draft: GraphDraft; onChange: (change: Partial<GraphDraft>) => void }) {
  return (
    <div className="graph-fields">
      <label>
        Measure
        <select value={draft.measure} onChange={(event) => onChange({ measure: event.target.value as MeasureType })} data-testid="graph-measure">
          {MEASURES.map((measure) => (
            <option key={measure.type} value={measure.type}>
              {measure.label}
            </option>
          ))}
        </select>
      </label>
      {draft.measure !== 'count' && (
        <label>
          Of the field
          <input className="mono" value={draft.field} onChange={(event) => onChange({ field: event.target.value })} placeholder="e.g. duration" data-testid="graph-field" />
        </label>
      )}
      <label>
        Broken down by <span className="muted">(optional)</span>
        <input className="mono" value={draft.breakdownField} onChange={(event) => onChange({ breakdownField: event.target.value })} placeholder="e.g. app" data-testid="graph-breakdown" />
      </label>
      {draft.breakdownField.trim() && (
        <label>
          Top values
          <input type="number" min={1} max={MOST_SERIES} value={draft.limit} onChange={(event) => onChange({ limit: event.target.value })} data-testid="graph-limit" />
        </label>
      )}
    </div>
  );
}

/** A graph's search: the query and the exact lists, as the search page's menus take them. */
export function SearchFields({ draft, onChange }: { draft: GraphDraft; onChange: (change: Partial<GraphDraft>) => void }) {
  const list = (name: 'apps' | 'hosts' | 'levels' | 'tags', label: string) => (
    <label>
      {label}
      <input className="mono" value={draft[name]} onChange={(event) => onChange({ [name]: event.target.value })} placeholder="any (comma-separated)" data-testid={`graph-${name}`} />
    </label>
  );
  return (
    <div className="graph-fields">
      <label className="wide">
        Search
        <input className="mono" value={draft.query} onChange={(event) => onChange({ query: event.target.value })} placeholder="every line" data-testid="graph-query" />
      </label>
      {list('apps', 'Apps')}
      {list('hosts', 'Hosts')}
      {list('levels', 'Levels')}
      {list('tags', 'Tags')}
    </div>
  );
}
