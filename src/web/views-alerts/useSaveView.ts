import { useEffect, useState } from 'react';
import { ApiError, type SavedView, type View, type ViewWarning, api } from '../api-client/client.js';
import { problemsOf } from './channel-wire.js';
import { type Draft, templateProblem, viewBody } from './view-body.js';
import type { SearchToSave } from './view-search.js';

interface Args {
  /** The view edited, or null for a new one. */
  view: View | null;
  search: SearchToSave;
  draft: Draft;
  onSaved: (view: SavedView) => void;
}

/**
 * Saving the form: the API's validation messages (cleared by the next edit, since they describe
 * the form as it was sent), and a save accepted with warnings, which keeps the form open to show them.
 */
export function useSaveView({ view, search, draft, onSaved }: Args) {
  const [problems, setProblems] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);
  const [warned, setWarned] = useState<{ view: SavedView; warnings: ViewWarning[] } | null>(null);
  useEffect(() => setProblems([]), [draft]);

  const save = async (category: string[]) => {
    const problem = templateProblem(draft.channels);
    if (problem) {
      setProblems([problem]);
      return;
    }
    setSaving(true);
    setProblems([]);
    try {
      // A category typed here for the first time is created, as the viewer's users expect. The
      // list is read afresh: an earlier attempt that the API refused may have created it already.
      const existing = (await api.categories()).map((known) => known.name.toLowerCase());
      for (const name of category) {
        if (!existing.includes(name.toLowerCase())) await api.createCategory(name);
      }
      const saved = await api.saveView(view?.viewid, viewBody(draft, category, view, search));
      if (saved.warnings?.length) setWarned({ view: saved, warnings: saved.warnings });
      else onSaved(saved);
    } catch (error) {
      setProblems(error instanceof ApiError ? problemsOf(error.body) : [String(error)]);
    } finally {
      setSaving(false);
    }
  };

  return { save, saving, problems, warned };
}
