import { useEffect, useState } from 'react';
import type { GraphSpec } from '../api-client/client.js';
import { errorText } from '../shared/error-text.js';
import { MeasureFields, SearchFields } from './GraphFields.js';
import { GraphPreview } from './GraphPreview.js';
import { type GraphDraft, draftOf, problemShown, specOf } from './graph-form.js';

interface Props {
  /** The graph as it is, or a new graph's starting point. */
  initial: GraphSpec;
  isNew: boolean;
  from: number;
  to: number;
  onSave: (spec: GraphSpec) => Promise<void>;
  onClose: () => void;
}

/** Adds or edits a graph: its title, search, measure and breakdown, with a preview over the board's range. */
export function GraphEditor({ initial, isNew, from, to, onSave, onClose }: Props) {
  const [draft, setDraft] = useState<GraphDraft>(() => draftOf(initial));
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  // Left the title field, or tried to save: only then is a missing title a problem to show.
  const [titleTouched, setTitleTouched] = useState(false);
  const checked = specOf(draft);
  const problem = problemShown(draft, titleTouched);
  // The preview follows the form once typing pauses, not on every key.
  const [previewed, setPreviewed] = useState<GraphSpec | null>('spec' in checked ? checked.spec : null);
  const specText = JSON.stringify('spec' in checked ? checked.spec : null);
  useEffect(() => {
    const timer = setTimeout(() => setPreviewed('spec' in checked ? checked.spec : null), 400);
    return () => clearTimeout(timer);
  }, [specText]);
  const change = (part: Partial<GraphDraft>) => setDraft({ ...draft, ...part });
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label={isNew ? 'Add a graph' : 'Edit the graph'} onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <form
        className="modal-body wide graph-editor"
        data-testid="graph-editor"
        onSubmit={(event) => {
          event.preventDefault();
          setTitleTouched(true);
          if (!('spec' in checked)) return;
          setSaving(true);
          onSave(checked.spec).catch((failure) => {
            setSaving(false);
            setError(errorText(failure));
          });
        }}
      >
        <header className="modal-header">
          <h2>{isNew ? 'Add a graph' : 'Edit the graph'}</h2>
        </header>
        <label>
          Title
          <input value={draft.title} onChange={(event) => change({ title: event.target.value })} onBlur={() => setTitleTouched(true)} data-testid="graph-title" autoFocus />
        </label>
        <SearchFields draft={draft} onChange={change} />
        <MeasureFields draft={draft} onChange={change} />
        <GraphPreview spec={previewed} from={from} to={to} />
        {(error || problem) && (
          <p className="error" role="alert" data-testid="graph-problem">
            {error || problem}
          </p>
        )}
        <footer className="modal-footer form-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving} data-testid="save-graph">
            {isNew ? 'Add the graph' : 'Save the graph'}
          </button>
        </footer>
      </form>
    </div>
  );
}
