import type { View } from '../api-client/client.js';
import { DEFAULT_COLUMNS, type ViewerState } from '../search/url-state.js';
import { columnsOf } from './view-columns.js';

/** Opening a view: its filters and the columns saved with it, as a change to the search (the query goes with it). */
export function openingView(view: View): Partial<ViewerState> {
  return { view: view.viewid, hosts: view.hosts, apps: view.apps, levels: view.levels, tags: view.tags, columns: columnsOf(view.description) ?? DEFAULT_COLUMNS };
}

/** What a view is saved from: the search on screen. An edited view keeps its own columns unless it is the one on screen. */
export function searchToSave(state: ViewerState, editing: View | null): SearchToSave {
  return {
    query: state.q,
    hosts: state.hosts,
    apps: state.apps,
    levels: state.levels,
    tags: state.tags,
    columns: editing === null || editing.viewid === state.view ? state.columns : (columnsOf(editing.description) ?? DEFAULT_COLUMNS),
  };
}

export interface SearchToSave {
  query: string;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
  columns: string[];
}
