import type { Channel, Preset, View, ViewBody } from '../api-client/client.js';
import { DEFAULT_COLUMNS } from '../search/url-state.js';
import { wireChannel } from './channel-wire.js';
import { columnsOf, withColumns } from './view-columns.js';
import type { SearchToSave } from './view-search.js';

/** A view as the form edits it: its categories, and one preset chosen from a list. */
export type Draft = Pick<View, 'name' | 'query' | 'hosts' | 'apps' | 'levels' | 'tags' | 'channels' | 'category'> & { presetid: string };

/** The form for an existing view, or for the search on screen as a new one. */
export function initialDraft(view: View | null, search: SearchToSave, presets: Preset[]): Draft {
  return {
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
  };
}

/** The categories with the one being typed, unless it is there already (in any case). */
export function withCategory(names: string[], typed: string): string[] {
  const name = typed.trim();
  return name && !names.some((known) => known.toLowerCase() === name.toLowerCase()) ? [...names, name] : names;
}

/** Why the form cannot be sent as it is: the first alert whose body template is not JSON. */
export function templateProblem(channels: Channel[]): string | undefined {
  const bad = channels.findIndex((channel) => {
    if (!channel.bodyTemplate) return false;
    try {
      JSON.parse(channel.bodyTemplate);
      return false;
    } catch {
      return true;
    }
  });
  return bad >= 0 ? `The body template of alert ${bad + 1} is not valid JSON; check its quotes and braces.` : undefined;
}

/** What saving the view sends (api.saveView). */
export function viewBody(draft: Draft, category: string[], view: View | null, search: SearchToSave): ViewBody {
  const body: ViewBody = {
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
  return body;
}
