import { useState } from 'react';
import type { Preset, SavedView, View } from '../api-client/client.js';
import { CategoryPicker } from './CategoryPicker.js';
import { ChannelList } from './ChannelList.js';
import { DeliveryHistory } from './DeliveryHistory.js';
import { SaveNotes } from './SaveNotes.js';
import { useSaveView } from './useSaveView.js';
import { type Draft, initialDraft, withCategory } from './view-body.js';
import type { SearchToSave } from './view-search.js';

interface Props {
  /** An existing view to edit, or the current search to save as a new one. */
  view: View | null;
  search: SearchToSave;
  presets: Preset[];
  categories: string[];
  onSaved: (view: SavedView) => void;
  onClose: () => void;
}

const FILTERS = ['hosts', 'apps', 'levels', 'tags'] as const;

/**
 * Saving a search as a view, or editing one, with its alert channels. It uses the configuration
 * API as any client does, and shows that API's validation messages beside the form.
 */
export function ViewEditor({ view, search, presets, categories, onSaved, onClose }: Props) {
  const [draft, setDraft] = useState<Draft>(() => initialDraft(view, search, presets));
  const { save, saving, problems, warned } = useSaveView({ view, search, draft, onSaved });
  /** A category being typed; it joins the view's categories on Enter, or when the view is saved. */
  const [typedCategory, setTypedCategory] = useState('');

  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label={view ? 'Edit view' : 'Save view'} onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <form
        className="modal-body"
        onSubmit={(event) => {
          event.preventDefault();
          void save(withCategory(draft.category, typedCategory));
        }}
      >
        <header className="modal-header">
          <h2>{view ? `Edit “${view.name}”` : 'Save search as a view'}</h2>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </header>
        <label>
          Name <input value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} autoFocus data-testid="view-name" />
        </label>
        <label>
          Query <input value={draft.query} onChange={(e) => setDraft({ ...draft, query: e.target.value })} className="mono" />
        </label>
        <p className="muted">Filters: {FILTERS.map((kind) => `${kind} ${draft[kind].join(', ') || 'any'}`).join(' · ')}</p>
        <CategoryPicker chosen={draft.category} known={categories} typed={typedCategory} onTyped={setTypedCategory} onChosen={(category) => setDraft({ ...draft, category })} />
        <label>
          Preset alert
          <select value={draft.presetid} onChange={(e) => setDraft({ ...draft, presetid: e.target.value })}>
            <option value="">None</option>
            {presets.map((preset) => (
              <option key={preset.presetid} value={preset.presetid}>
                {preset.name}
              </option>
            ))}
          </select>
        </label>
        <ChannelList
          channels={draft.channels}
          viewid={view?.viewid}
          filters={{ query: draft.query, hosts: draft.hosts, apps: draft.apps, levels: draft.levels, tags: draft.tags }}
          onChange={(channels) => setDraft({ ...draft, channels })}
        />
        {view && <DeliveryHistory viewid={view.viewid} />}
        <SaveNotes problems={problems} warnings={warned?.warnings ?? null} />
        <footer className="modal-footer">
          {warned ? (
            <button type="button" className="primary" onClick={() => onSaved(warned.view)} data-testid="close-warnings">
              Close
            </button>
          ) : (
            <button type="submit" className="primary" disabled={saving}>
              {saving ? 'Saving…' : 'Save view'}
            </button>
          )}
        </footer>
      </form>
    </div>
  );
}
