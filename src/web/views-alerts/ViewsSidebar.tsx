import type { View } from '../api-client/client.js';
import { alertsTooltip } from './alert-summary.js';

interface Props {
  views: View[];
  current: string;
  onOpen: (view: View) => void;
  onEdit: (view: View) => void;
  onDelete: (view: View) => void;
  onNew: () => void;
  /** False for a readonly member: no control to save, edit or delete a view (the server would refuse). */
  editable: boolean;
}

/** Saved views, grouped by category; a bell marks views with alerts, and its tooltip says what each alert does. */
export function ViewsSidebar({ views, current, onOpen, onEdit, onDelete, onNew, editable }: Props) {
  const groups = new Map<string, View[]>();
  // A view with several categories is listed under each.
  for (const view of views) {
    for (const category of view.category.length > 0 ? view.category : ['Uncategorized']) groups.set(category, [...(groups.get(category) ?? []), view]);
  }
  const names = [...groups.keys()].sort((a, b) => (a === 'Uncategorized' ? 1 : b === 'Uncategorized' ? -1 : a.localeCompare(b)));
  return (
    <nav className="views" aria-label="Views">
      <div className="views-header">
        <h2>Views</h2>
        {editable && (
          <button type="button" onClick={onNew} data-testid="save-view">
            Save search
          </button>
        )}
      </div>
      {views.length === 0 && <p className="muted">{editable ? 'Save a search to keep it here.' : 'No saved views yet.'}</p>}
      {names.map((name) => (
        <section key={name}>
          <h3>{name}</h3>
          <ul>
            {groups.get(name)!.map((view) => (
              <li key={view.viewid} className={view.viewid === current ? 'current' : ''}>
                <button type="button" className="view-link" onClick={() => onOpen(view)} data-testid="view-link">
                  {view.name}
                  {view.channels.length > 0 && (
                    <svg
                      className={view.channels.some((channel) => channel.held) ? 'bell held' : 'bell'}
                      role="img"
                      aria-label={view.channels.some((channel) => channel.held) ? 'has a held alert' : 'has alerts'}
                      viewBox="0 0 16 16"
                      width="12"
                      height="12"
                    >
                      <title>{alertsTooltip(view.channels)}</title>
                      <path d="M8 1a4 4 0 0 0-4 4v3L2.5 11h11L12 8V5a4 4 0 0 0-4-4zm-1.5 11.5a1.5 1.5 0 0 0 3 0z" fill="currentColor" />
                    </svg>
                  )}
                </button>
                {editable && (
                  <>
                    <button type="button" className="icon" aria-label={`Edit ${view.name}`} onClick={() => onEdit(view)}>
                      ✎
                    </button>
                    <button type="button" className="icon" aria-label={`Delete ${view.name}`} onClick={() => onDelete(view)}>
                      ×
                    </button>
                  </>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
