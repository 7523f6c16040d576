import { useEffect, useState } from 'react';
import { ApiError, type Channel, type Preset, type SavedView, type View, type ViewWarning, api } from '../api.js';
import { DEFAULT_COLUMNS } from '../url-state.js';
import { columnsOf, withColumns } from '../view-columns.js';
import { ChannelEditor, blankChannel } from './ChannelEditor.js';
import { problemsOf, wireChannel } from './channel-wire.js';
import { DeliveryHistory } from './DeliveryHistory.js';

/** A view as the form edits it: its categories, and one preset chosen from a list. */
type Draft = Pick<View, 'name' | 'query' | 'hosts' | 'apps' | 'levels' | 'tags' | 'channels' | 'category'> & { presetid: string };

interface Props {
  /** An existing view to edit, or the current search to save as a new one. */
  view: View | null;
  search: { query: string; hosts: string[]; apps: string[]; levels: string[]; tags: string[]; columns: string[] };
  presets: Preset[];
  categories: string[];
  onSaved: (view: View) => void;
  onClose: () => void;
}

/**
 * Saving a search as a view, or editing one, with its alert channels. It uses the configuration
 * API as any client does, and shows that API's validation messages beside the form.
 */
export function ViewEditor({ view, search, presets, categories, onSaved, onClose }: Props) {
  const [draft, setDraft] = useState<Draft>(() => ({
    name: view?.name ?? '',
    query: view?.query ?? search.query,
    hosts: view?.hosts ?? search.hosts,
    apps: view?.apps ?? search.apps,
    levels: view?.levels ?? search.levels,
    tags: view?.tags ?? search.tags,
    category: view?.category ?? [],
    presetid: view?.presetids[0] ?? '',
    // A preset's channels show on the view; only the view's own are edited here.
    channels: (view?.channels ?? []).filter((channel) => !presets.some((preset) => preset.channels.some((c) => c.alertid === channel.alertid))),
  }));
  const [problems, setProblems] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);
  /** A save the API accepted with warnings: the form stays open to show them until closed. */
  const [savedWithWarnings, setSavedWithWarnings] = useState<{ view: View; warnings: ViewWarning[] } | null>(null);
  /** A category being typed; it joins the view's categories on Enter, or when the view is saved. */
  const [typedCategory, setTypedCategory] = useState('');
  const withTyped = (names: string[]) => {
    const typed = typedCategory.trim();
    return typed && !names.some((name) => name.toLowerCase() === typed.toLowerCase()) ? [...names, typed] : names;
  };
  // Messages describe the form as it was sent; an edit makes them stale.
  useEffect(() => setProblems([]), [draft]);

  const setChannel = (index: number, change: Partial<Channel>) =>
    setDraft({ ...draft, channels: draft.channels.map((channel, i) => (i === index ? { ...channel, ...change } : channel)) });

  const save = async () => {
    const badTemplate = draft.channels.findIndex((channel) => {
      if (!channel.bodyTemplate) return false;
      try {
        JSON.parse(channel.bodyTemplate);
        return false;
      } catch {
        return true;
      }
    });
    if (badTemplate >= 0) {
      setProblems([`The body template of alert ${badTemplate + 1} is not valid JSON; check its quotes and braces.`]);
      return;
    }
    setSaving(true);
    setProblems([]);
    const category = withTyped(draft.category);
    const body: Record<string, unknown> = {
      name: draft.name,
      query: draft.query,
      hosts: draft.hosts,
      apps: draft.apps,
      levels: draft.levels,
      tags: draft.tags,
      category,
      // The columns shown when the view was saved travel in its description (view-columns.ts).
      ...(columnsOf(view?.description) || search.columns.join() !== DEFAULT_COLUMNS.join() ? { description: withColumns(view?.description, search.columns) } : {}),
      // alertid goes back with each channel, so an unchanged alert keeps its window.
      channels: draft.channels.map(wireChannel),
    };
    if (draft.presetid) body.presetid = draft.presetid;
    try {
      // A category typed here for the first time is created, as the viewer's users expect. The
      // list is read afresh: an earlier attempt that the API refused may have created it already.
      const existing = (await api<Array<{ name: string }>>('GET', '/v1/config/categories/views')).map((known) => known.name.toLowerCase());
      for (const name of category) {
        if (!existing.includes(name.toLowerCase())) await api('POST', '/v1/config/categories/views', { name });
      }
      const saved = view ? await api<SavedView>('PUT', `/v1/config/view/${view.viewid}`, body) : await api<SavedView>('POST', '/v1/config/view', body);
      if (saved.warnings?.length) setSavedWithWarnings({ view: saved as unknown as View, warnings: saved.warnings });
      else onSaved(saved as unknown as View);
    } catch (error) {
      if (error instanceof ApiError) setProblems(problemsOf(error.body));
      else setProblems([String(error)]);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label={view ? 'Edit view' : 'Save view'} onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <form
        className="modal-body"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
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
        <p className="muted">
          Filters: {['hosts', 'apps', 'levels', 'tags'].map((k) => `${k} ${(draft[k as 'hosts'] as string[]).join(', ') || 'any'}`).join(' · ')}
        </p>
        {/* Not a <label>: a click on its text would press the first chip's remove button. */}
        <div className="field" role="group" aria-label="Categories">
          Categories
          <span className="chips">
            {draft.category.map((name) => (
              <span className="chip" key={name} data-testid="view-category-chip">
                {name}
                <button type="button" className="icon" aria-label={`Remove category ${name}`} onClick={() => setDraft({ ...draft, category: draft.category.filter((kept) => kept !== name) })}>
                  ×
                </button>
              </span>
            ))}
          </span>
          <input
            list="categories"
            value={typedCategory}
            placeholder="Add a category (Enter)"
            aria-label="Add a category"
            data-testid="view-category"
            onChange={(e) => setTypedCategory(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              e.preventDefault();
              setDraft({ ...draft, category: withTyped(draft.category) });
              setTypedCategory('');
            }}
          />
          <datalist id="categories">
            {categories.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
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

        <fieldset className="channels">
          <legend>Alerts</legend>
          {draft.channels.map((channel, index) => (
            <ChannelEditor
              key={index}
              channel={channel}
              viewid={view?.viewid}
              filters={{ query: draft.query, hosts: draft.hosts, apps: draft.apps, levels: draft.levels, tags: draft.tags }}
              onChange={(change) => setChannel(index, change)} onRemove={() => setDraft({ ...draft, channels: draft.channels.filter((_, i) => i !== index) })} />
          ))}
          <div className="channel-row">
            <span>Add an alert:</span>
            {['email', 'webhook', 'incidentpaging'].map((integration) => (
              <button key={integration} type="button" onClick={() => setDraft({ ...draft, channels: [...draft.channels, blankChannel(integration)] })}>
                + {integration === 'incidentpaging' ? 'paging' : integration}
              </button>
            ))}
          </div>
        </fieldset>
        {view && <DeliveryHistory viewid={view.viewid} />}

        {problems.length > 0 && (
          <ul className="error" role="alert" data-testid="view-errors">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        )}
        {savedWithWarnings && (
          <div className="notice" role="status" data-testid="view-warnings">
            <p>Saved, but:</p>
            <ul>
              {savedWithWarnings.warnings.map((warning) => (
                <li key={`${warning.channel}-${warning.code}`} data-testid="view-warning" data-code={warning.code}>
                  Alert {warning.channel + 1}: {warning.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        <footer className="modal-footer">
          {savedWithWarnings ? (
            <button type="button" className="primary" onClick={() => onSaved(savedWithWarnings.view)} data-testid="close-warnings">
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
