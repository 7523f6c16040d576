import type { Filters } from '../api-client/client.js';

/** The whole search lives in the URL, so a search can be shared and reloaded. */
export interface ViewerState extends Filters {
  /** A preset such as "1h", or "custom" with from/to. */
  range: string;
  view: string;
  live: boolean;
  /** Fields shown as columns in the line list, after the time. */
  columns: string[];
  /** Which of the search's answers is shown under the timeline; in the URL so reload, Back and Forward keep it. */
  tab: ResultsTab;
}

export type ResultsTab = 'lines' | 'patterns';

export const RANGES: Array<{ key: string; label: string; ms: number }> = [
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 24 * 3_600_000 },
];

/** The columns a new search shows. */
export const DEFAULT_COLUMNS = ['level', 'host', 'app'];

/** One message for a reversed range, wherever it was entered (the range picker, the URL, the timeline). */
export function reversedRange(from: number, to: number): string | undefined {
  return from > to ? 'The time range ends before it starts: "from" must not be later than "to".' : undefined;
}

const list = (value: string | null) => (value ? value.split(',').filter(Boolean) : []);
const KNOWN = new Set(['q', 'range', 'from', 'to', 'hosts', 'apps', 'levels', 'tags', 'view', 'live', 'columns', 'tab', 'line']);
const isTime = (value: string | null) => value !== null && /^\d+$/.test(value);

export function readState(search = window.location.search): ViewerState {
  const params = new URLSearchParams(search);
  let range = params.get('range') ?? (params.get('from') ? 'custom' : '1h');
  const live = params.get('live') === '1';
  // An unknown range reads as the default (urlProblems says so); live tail always follows the present.
  if (range !== 'custom' && !RANGES.some((known) => known.key === range)) range = '1h';
  if (range === 'custom' && !(isTime(params.get('from')) && isTime(params.get('to')))) range = '1h';
  if (live && range === 'custom') range = '1h';
  return {
    q: params.get('q') ?? '',
    range,
    from: Number(params.get('from')) || 0,
    to: Number(params.get('to')) || 0,
    hosts: list(params.get('hosts')),
    apps: list(params.get('apps')),
    levels: list(params.get('levels')),
    tags: list(params.get('tags')),
    view: params.get('view') ?? '',
    live,
    columns: params.has('columns') ? list(params.get('columns')) : DEFAULT_COLUMNS,
    tab: params.get('tab') === 'patterns' ? 'patterns' : 'lines',
  };
}

/** What in a URL could not be used as written, so it is reported rather than silently replaced. */
export function urlProblems(search = window.location.search): string[] {
  const params = new URLSearchParams(search);
  const problems: string[] = [];
  const range = params.get('range');
  if (range !== null && range !== 'custom' && !RANGES.some((known) => known.key === range)) {
    problems.push(`The URL's range "${range}" is not one of ${RANGES.map((known) => known.key).join(', ')}; showing the last hour.`);
  }
  for (const name of ['from', 'to']) {
    const value = params.get(name);
    if (value !== null && !isTime(value)) problems.push(`The URL's "${name}" is not a time in milliseconds since 1970 ("${value}"); showing the last hour.`);
  }
  if ((params.get('from') === null) !== (params.get('to') === null)) problems.push('The URL has only one of "from" and "to"; showing the last hour.');
  const live = params.get('live');
  if (live !== null && live !== '1' && live !== '0') problems.push(`The URL's "live" is "${live}"; use 1 or 0.`);
  if (live === '1' && params.get('from')) problems.push('Live tail follows the present, so the URL\'s "from" and "to" are not used.');
  const tab = params.get('tab');
  if (tab !== null && tab !== 'lines' && tab !== 'patterns') problems.push(`The URL's "tab" is "${tab}"; use lines or patterns.`);
  for (const name of params.keys()) if (!KNOWN.has(name)) problems.push(`The URL parameter "${name}" is not one the viewer knows; it was ignored.`);
  return [...new Set(problems)];
}

export function writeState(state: ViewerState): void {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.range === 'custom') {
    params.set('from', String(state.from));
    params.set('to', String(state.to));
  } else {
    params.set('range', state.range);
  }
  for (const key of ['hosts', 'apps', 'levels', 'tags'] as const) if (state[key].length) params.set(key, state[key].join(','));
  if (state.view) params.set('view', state.view);
  if (state.live) params.set('live', '1');
  if (state.columns.join(',') !== DEFAULT_COLUMNS.join(',')) params.set('columns', state.columns.join(','));
  if (state.tab === 'patterns') params.set('tab', 'patterns');
  const next = `${window.location.pathname}?${params}`;
  if (next !== `${window.location.pathname}${window.location.search}`) window.history.pushState(null, '', next);
}

/** The absolute time range a state stands for, now. */
export function timeRange(state: ViewerState, now = Date.now()): { from: number; to: number } {
  if (state.range === 'custom' && state.from && state.to) return { from: state.from, to: state.to };
  const preset = RANGES.find((range) => range.key === state.range) ?? RANGES[1];
  return { from: now - preset.ms, to: now };
}

/** Switching live tail on or off; live tail follows the present, so a custom range gives way to the last hour. */
export function liveChange(on: boolean, range: string): Partial<ViewerState> {
  return { live: on, ...(on && range === 'custom' ? { range: '1h' } : {}) };
}

export function toFilters(state: ViewerState, now = Date.now()): Filters {
  return { q: state.q, ...timeRange(state, now), hosts: state.hosts, apps: state.apps, levels: state.levels, tags: state.tags };
}
