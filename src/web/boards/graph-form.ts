import type { Board, BoardInput, GraphSpec, MeasureType } from '../api-client/client.js';
import { measureLabel } from '../charts/chart-scale.js';
import type { Filters } from '../api-client/client.js';

/** The measures a graph offers, in the menu's order, with their names in words. */
export const MEASURES: Array<{ type: MeasureType; label: string }> = [
  { type: 'count', label: 'Count of lines' },
  { type: 'sum', label: 'Sum' },
  { type: 'avg', label: 'Average' },
  { type: 'min', label: 'Minimum' },
  { type: 'max', label: 'Maximum' },
  { type: 'unique', label: 'Unique values' },
  { type: 'p50', label: '50th percentile' },
  { type: 'p90', label: '90th percentile' },
  { type: 'p95', label: '95th percentile' },
  { type: 'p99', label: '99th percentile' },
];

/** The most series a breakdown may ask for (its top values; the rest are `other`). */
export const MOST_SERIES = 20;
export const DEFAULT_SERIES = 5;

/** A graph as its editor holds it: lists as the text typed, the breakdown's limit as typed. */
export interface GraphDraft {
  title: string;
  query: string;
  apps: string;
  hosts: string;
  levels: string;
  tags: string;
  measure: MeasureType;
  field: string;
  breakdownField: string;
  limit: string;
}

const listText = (values: string[]) => values.join(', ');
const parseList = (text: string) => [...new Set(text.split(',').map((value) => value.trim()).filter(Boolean))];

export function draftOf(graph: GraphSpec): GraphDraft {
  return {
    title: graph.title,
    query: graph.query,
    apps: listText(graph.apps),
    hosts: listText(graph.hosts),
    levels: listText(graph.levels),
    tags: listText(graph.tags),
    measure: graph.measure.type,
    field: graph.measure.field ?? '',
    breakdownField: graph.breakdown?.field ?? '',
    limit: String(graph.breakdown?.limit ?? DEFAULT_SERIES),
  };
}

/** The graph a draft stands for, or what is missing from it, in words. */
export function specOf(draft: GraphDraft): { spec: GraphSpec } | { problem: string } {
  const title = draft.title.trim();
  if (!title) return { problem: 'Give the graph a title.' };
  const field = draft.field.trim();
  if (draft.measure !== 'count' && !field) return { problem: `Name the field whose ${draft.measure === 'unique' ? 'distinct values are counted' : 'values are measured'}.` };
  const spec: GraphSpec = {
    title,
    query: draft.query.trim(),
    apps: parseList(draft.apps),
    hosts: parseList(draft.hosts),
    levels: parseList(draft.levels),
    tags: parseList(draft.tags),
    measure: draft.measure === 'count' ? { type: 'count' } : { type: draft.measure, field },
  };
  const breakdown = draft.breakdownField.trim();
  if (breakdown) {
    const limit = Number(draft.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MOST_SERIES) return { problem: `Show from 1 to ${MOST_SERIES} values of ${breakdown}.` };
    spec.breakdown = { field: breakdown, limit };
  }
  return { spec };
}

/**
 * The problem the editor shows for a draft: a missing title only once the person has left the
 * title field or tried to save (not in red on a form just opened); any other problem at once.
 */
export function problemShown(draft: GraphDraft, titleTouched: boolean): string {
  const checked = specOf(draft);
  if (!('problem' in checked)) return '';
  if (titleTouched || draft.title.trim()) return checked.problem;
  const rest = specOf({ ...draft, title: 'untitled' });
  return 'problem' in rest ? rest.problem : '';
}

/** A graph's subtitle: what it measures, and all of its search (query and menus), so two graphs of one query tell apart. */
export function graphAbout(graph: GraphSpec): string {
  const parts = [`${measureLabel(graph.measure)}${graph.breakdown ? ` by ${graph.breakdown.field}` : ''}`];
  if (graph.query) parts.push(graph.query);
  for (const key of ['apps', 'hosts', 'levels', 'tags'] as const) if (graph[key]?.length) parts.push(`${key}: ${graph[key].join(', ')}`);
  return parts.join(' · ');
}

/** The search on the search page, as a graph to chart or save: its query and menus, counted unless a measure is given. */
export function searchGraph(filters: Pick<Filters, 'q' | 'apps' | 'hosts' | 'levels' | 'tags'>, extra: Partial<GraphSpec> = {}): GraphSpec {
  return {
    title: filters.q || 'All lines',
    query: filters.q,
    apps: filters.apps,
    hosts: filters.hosts,
    levels: filters.levels,
    tags: filters.tags,
    measure: { type: 'count' },
    ...extra,
  };
}

/** A board as PUT takes it back: its name, category and graphs, each graph keeping its id. */
export function boardInput(board: Board, graphs: BoardInput['graphs'] = board.graphs): BoardInput {
  return { name: board.name, category: board.category, graphs };
}

/** Boards grouped by category, the categories in name order and the uncategorized last. */
export function byCategory<T extends { name: string; category: string | null }>(boards: T[]): Array<{ category: string | null; boards: T[] }> {
  const groups = new Map<string | null, T[]>();
  for (const board of [...boards].sort((a, b) => a.name.localeCompare(b.name))) groups.set(board.category, [...(groups.get(board.category) ?? []), board]);
  return [...groups.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
    .map(([category, boards]) => ({ category, boards }));
}
